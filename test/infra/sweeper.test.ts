/**
 * The sweeper in the cloud (issue 13, lib/cdk/sweeper.ts): its rule every 5 minutes, its function
 * with the table and the processor and nothing else, and the alarm on failed runs.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { SWEEP_INTERVAL_MINUTES, SWEEPER_HANDLER } from '#contract/processing';
import type { Stage } from '#contract/stage';
import {
  actionsOf,
  flatten,
  functionIdOf,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as const)('sweeper (%s)', (stage: Stage) => {
  let template: Template;
  let fnId: string;

  beforeAll(() => {
    template = stageTemplateOf(stage);
    fnId = functionIdOf(template, stage, SWEEPER_HANDLER);
  }, SYNTH_TIMEOUT_MS);

  const fn = () => resourcesOf(template, 'AWS::Lambda::Function')[fnId]!;

  it(`runs the sweep function every ${SWEEP_INTERVAL_MINUTES} minutes, without retrying a missed run`, () => {
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter((r) =>
      ((props(r).Targets ?? []) as { Arn: unknown }[]).some((t) => flatten(t.Arn) === `\${${fnId}.Arn}`),
    );
    expect(rules).toHaveLength(1);
    expect(props(rules[0]!)).toMatchObject({
      Name: `scheduled-payments-${stage}-sweep`,
      ScheduleExpression: `rate(${SWEEP_INTERVAL_MINUTES} minutes)`,
      State: 'ENABLED',
    });
    const [target] = props(rules[0]!).Targets as Record<string, unknown>[];
    expect(target).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 0 } });
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission'))
      .map(props)
      .filter((p) => flatten(p.FunctionName).includes(fnId));
    expect(permissions).toContainEqual(
      expect.objectContaining({ Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com' }),
    );
  });

  it('gives the function the table and the processor, and time for a backlog', () => {
    expect(props(fn())).toMatchObject({ Runtime: 'nodejs22.x', Timeout: 300 });
    const variables = (props(fn()).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['TABLE_NAME', 'PROCESSOR', 'SERVICE_STAGE']),
    );
  });

  it('may read and write the table (and its sweep index), and starts no execution nor sends mail', () => {
    const statements = roleStatements(template, roleIdOf(fn()));
    const actions = statements.flatMap(actionsOf);
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:Query',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]),
    );
    const tableStatements = statements.filter((s) => actionsOf(s).includes('dynamodb:Query'));
    expect(tableStatements.flatMap(resourcesOfStatement).some((r) => r.endsWith('/index/*'))).toBe(true);
    expect(actions.filter((a) => /^(states|ses|sns):/.test(a))).toEqual([]);
  });

  it('alarms when a sweep fails', () => {
    const alarm = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map(props)
      .find((a) => a.AlarmName === `scheduled-payments-${stage}-sweeper-errors`);
    expect(alarm).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Period: 900 });
    expect(flatten(alarm!.Dimensions)).toContain(fnId);
    expect((alarm!.AlarmActions as unknown[]).length).toBe(1);
  });
});
