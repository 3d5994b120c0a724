/**
 * What the functions log is set, not left to defaults: every function of both stages sets its
 * Powertools log level (INFO; never DEBUG), prod's above all (lib/cdk/service-function.ts).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Stage } from '#contract/stage';
import { LOG_LEVELS } from '#lib/cdk/service-function';
import { props, resourcesOf, stageTemplateOf, SYNTH_TIMEOUT_MS } from '#support/cdk/synth';

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  /** Each function's name and variables, but prod's inline refusals (no code of ours, no logger). */
  const functions = () =>
    Object.values(resourcesOf(template, 'AWS::Lambda::Function'))
      .filter((fn) => (props(fn).Code as { ZipFile?: string } | undefined)?.ZipFile === undefined)
      .map((fn) => ({
        name: String(props(fn).FunctionName),
        variables:
          (props(fn).Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      }));

  test(`defect: ${stage} functions leave their log level to the default`, () => {
    const found = functions();
    expect(found.length).toBeGreaterThan(40);
    expect(found.filter((f) => f.variables.POWERTOOLS_LOG_LEVEL !== 'INFO').map((f) => f.name)).toEqual([]);
    expect(LOG_LEVELS[stage]).toBe('INFO');
  });
});
