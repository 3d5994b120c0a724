/** The service's alarms: each notifies the stage's alarm topic. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { SERVICE_NAME } from './service-function';

export interface AlarmOptions {
  /** @default 1 (any occurrence in the metric's period) */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
}

export function serviceAlarm(
  scope: Construct,
  stage: Stage,
  topic: sns.ITopic,
  name: string,
  metric: cloudwatch.IMetric,
  description: string,
  options: AlarmOptions = {},
): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, name, {
    alarmName: `${SERVICE_NAME}-${stage}-${name}`,
    alarmDescription: description,
    metric,
    threshold: options.threshold ?? 1,
    evaluationPeriods: options.evaluationPeriods ?? 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    // No data means nothing happened: no errors, no throttles, no messages.
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new actions.SnsAction(topic));
  return alarm;
}
