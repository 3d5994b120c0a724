/**
 * The return-rates job in the cloud: the hourly rule, the function with the table, the alarm on
 * any merchant at `alert` or `over` (exactly the metric the job emits) and the alarm on failed runs.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { RETURN_RATES_JOB, RETURN_RATES_METRIC } from '#contract/return-rates';
import type { Stage } from '#contract/stage';
import { attentionMetricLine } from '#domain/return-rates';
import {
  emittedMetric,
  flatten,
  functionIdOf,
  props,
  resourcesOf,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as const)('the return-rates job (%s)', (stage: Stage) => {
  let template: Template;
  let fnId: string;

  beforeAll(() => {
    template = stageTemplateOf(stage);
    fnId = functionIdOf(template, stage, RETURN_RATES_JOB.handler);
  }, SYNTH_TIMEOUT_MS);

  const alarm = (name: string) =>
    Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map(props)
      .find((a) => a.AlarmName === `scheduled-payments-${stage}-${name}`);

  it('runs the function every hour at :25 with the table, and no processor', () => {
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter((r) =>
      ((props(r).Targets ?? []) as { Arn: unknown }[]).some((t) => flatten(t.Arn) === `\${${fnId}.Arn}`),
    );
    expect(rules).toHaveLength(1);
    expect(props(rules[0]!)).toMatchObject({
      Name: `scheduled-payments-${stage}-return-rates-hourly`,
      ScheduleExpression: 'cron(25 * * * ? *)',
      State: 'ENABLED',
    });
    const fn = props(resourcesOf(template, 'AWS::Lambda::Function')[fnId]!);
    expect(fn).toMatchObject({ Timeout: RETURN_RATES_JOB.timeoutSeconds });
    const variables = Object.keys((fn.Environment as { Variables: Record<string, unknown> }).Variables);
    expect(variables).toEqual(expect.arrayContaining(['TABLE_NAME', 'SERVICE_STAGE']));
    expect(variables).not.toContain('PROCESSOR');
  });

  it('alarms on any merchant at alert or over, exactly as the job emits the count (namespace, name, dimension)', () => {
    const topicRef = template.findOutputs('AlarmTopicArn').AlarmTopicArn?.Value as { Ref: string };
    // What the job writes (an embedded-metric log line), read back as CloudWatch would.
    const emitted = emittedMetric(attentionMetricLine(1, stage, new Date()));
    expect(emitted).toMatchObject({
      namespace: RETURN_RATES_METRIC.namespace,
      name: RETURN_RATES_METRIC.name,
    });
    expect(alarm('return-rates-attention')).toMatchObject({
      Namespace: emitted.namespace,
      MetricName: emitted.name,
      Dimensions: [emitted.dimension],
      Statistic: 'Maximum',
      Period: 3600,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topicRef],
    });
  });

  it('alarms when runs keep failing (the attention alarm would stay silent)', () => {
    expect(alarm('return-rates-job-errors')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: expect.anything() }],
      Threshold: 3,
    });
  });
});
