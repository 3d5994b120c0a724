/**
 * Issue 10 item 3: a big group create fits API Gateway's 29 s. The create function's timeout is
 * under the gateway's, and above the budget its batch writes may take (a 10,000-payment create
 * writes for ~10 s into one partition: contract/limits.ts).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { CREATE_GROUP_TIMEOUT_SECONDS } from '#contract/limits';
import { routes } from '#contract/routes/index';
import type { Stage } from '#contract/stage';
import { CREATE_GROUP_HANDLER } from '#contract/limits';
import { BATCH_WRITE_BUDGET_MS } from '#store/items';
import { functionIdOf, props, resourcesOf, SYNTH_TIMEOUT_MS, stageTemplateOf } from '#support/cdk/synth';

/** API Gateway's integration timeout (REST APIs, default and maximum without a quota raise). */
const API_GATEWAY_TIMEOUT_SECONDS = 29;

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s group create', (stage: Stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  it('runs the CreateGroup handler with a timeout under API Gateway’s 29 s and above its write budget', () => {
    expect(routes.CreateGroup.handler).toBe(CREATE_GROUP_HANDLER);
    const fn = resourcesOf(template, 'AWS::Lambda::Function')[
      functionIdOf(template, stage, CREATE_GROUP_HANDLER)
    ]!;
    const timeout = props(fn).Timeout as number;
    expect(timeout).toBe(CREATE_GROUP_TIMEOUT_SECONDS);
    expect(timeout).toBeLessThan(API_GATEWAY_TIMEOUT_SECONDS);
    // The reads before the writes (saved methods, e-mail addresses) and the commit take seconds.
    expect(timeout * 1000).toBeGreaterThanOrEqual(BATCH_WRITE_BUDGET_MS + 5_000);
  });
});
