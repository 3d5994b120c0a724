/**
 * Daily reconciliation in the cloud: the rule, the function (with the table and the processor),
 * the metric filter on its report and the alarms on unhealed differences and on failed runs.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { RECONCILIATION } from '#contract/processing';
import type { Stage } from '#contract/stage';
import {
  flatten,
  functionIdOf,
  props,
  resourcesOf,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as const)('reconciliation (%s)', (stage: Stage) => {
  let template: Template;
  let fnId: string;

  beforeAll(() => {
    template = stageTemplateOf(stage);
    fnId = functionIdOf(template, stage, RECONCILIATION.handler);
  }, SYNTH_TIMEOUT_MS);

  const fn = () => props(resourcesOf(template, 'AWS::Lambda::Function')[fnId]!);

  it('runs the reconcile function once a day, with the scheduled event itself', () => {
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter((r) =>
      ((props(r).Targets ?? []) as { Arn: unknown }[]).some((t) => flatten(t.Arn) === `\${${fnId}.Arn}`),
    );
    expect(rules).toHaveLength(1);
    expect(props(rules[0]!)).toMatchObject({
      Name: `scheduled-payments-${stage}-reconciliation`,
      ScheduleExpression: 'cron(15 2 * * ? *)',
      State: 'ENABLED',
    });
    const [target] = props(rules[0]!).Targets as Record<string, unknown>[];
    expect(target).not.toHaveProperty('Input');
  });

  it('gives the function the table, the processor and time for a day of activity', () => {
    expect(fn()).toMatchObject({ Runtime: 'nodejs22.x', Timeout: 900, MemorySize: 1024 });
    const variables = (fn().Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['TABLE_NAME', 'PROCESSOR', 'SERVICE_STAGE']),
    );
  });

  it("turns the report's unhealed count into a metric and alarms when it is above 0", () => {
    const filters = Object.values(resourcesOf(template, 'AWS::Logs::MetricFilter')).map(props);
    const filter = filters.find((f) => JSON.stringify(f).includes('ReconciliationUnhealed'));
    expect(filter).toMatchObject({
      FilterPattern: `{ $.message = "${RECONCILIATION.reportMessage}" }`,
      MetricTransformations: [
        {
          MetricNamespace: `scheduled-payments-${stage}`,
          MetricName: 'ReconciliationUnhealed',
          MetricValue: '$.unhealed',
        },
      ],
    });
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(props);
    const unhealed = alarms.find(
      (a) => a.AlarmName === `scheduled-payments-${stage}-reconciliation-unhealed`,
    );
    expect(unhealed).toMatchObject({
      MetricName: 'ReconciliationUnhealed',
      Namespace: `scheduled-payments-${stage}`,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Period: 86_400,
    });
    expect((unhealed!.AlarmActions as unknown[]).length).toBe(1);
    const errors = alarms.find((a) => a.AlarmName === `scheduled-payments-${stage}-reconciliation-errors`);
    expect(errors).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda' });
  });
});
