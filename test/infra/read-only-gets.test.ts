/**
 * Issue 25, defect 5 ("GET of a transaction writes and calls the processor"): reads are reads.
 * Every GET route's function, on both stages, may only read the service table (no write action)
 * and is given none of the processor's settings (PROCESSOR, the settlement schedule): a stale
 * Pending sale is settled by the sweeper, never by the GET that reads it.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { routeList as routes } from '#contract/routes/index';
import type { Stage } from '#contract/stage';
import {
  actionsOf,
  functionIdOf,
  props,
  resourcesOf,
  roleIdOf,
  roleStatements,
  stageTemplateOf,
  SYNTH_TIMEOUT_MS,
  type Resource,
  isDataKeyStatement,
} from '#support/cdk/synth';

/** What a function bound to the processor gets (lib/cdk/processor.ts): none of it on a GET. */
const PROCESSOR_VARIABLES = ['PROCESSOR', 'SETTLEMENT_PERIOD_SECONDS', 'SETTLEMENT_OFFSET_SECONDS'];
/** DynamoDB's read actions (CDK's grantReadData); anything else on the table is a write. */
const READ_ACTIONS = new Set([
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:Query',
  'dynamodb:Scan',
]);

const getHandlers = [...new Set(routes.filter((r) => r.method === 'GET').map((r) => r.handler))];

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  const functionOf = (handler: string): Resource =>
    resourcesOf(template, 'AWS::Lambda::Function')[functionIdOf(template, stage, handler)] as Resource;

  test('defect 5, GET of a transaction writes and calls the processor: every GET route’s function has read-only table actions and no processor settings', () => {
    expect(getHandlers).toContain('transactions/get-transaction');
    const found = getHandlers.map((handler) => {
      const fn = functionOf(handler);
      // Prod's table key goes with the table (kms.test.ts: a reader holds kms:Decrypt only).
      const actions = roleStatements(template, roleIdOf(fn))
        .filter((s) => !isDataKeyStatement(s))
        .flatMap(actionsOf);
      const variables = Object.keys(
        ((props(fn).Environment as { Variables?: Record<string, unknown> }) ?? {}).Variables ?? {},
      );
      return {
        handler,
        writes: actions.filter((a) => a.startsWith('dynamodb:') && !READ_ACTIONS.has(a)),
        // Each reads as its code does (GetItem; Query for lists): lib/cdk/access.ts grants no more.
        reads: actions.includes('dynamodb:GetItem'),
        other: actions.filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('xray:')),
        processorSettings: variables.filter((v) => PROCESSOR_VARIABLES.includes(v)),
      };
    });
    expect(found).toEqual(
      getHandlers.map((handler) => ({ handler, writes: [], reads: true, other: [], processorSettings: [] })),
    );
  });
});
