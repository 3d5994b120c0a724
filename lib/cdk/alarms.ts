/** The service's alarms: any occurrence in 5 minutes notifies the stage's alarm topic. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { SERVICE_NAME } from './service-function';

export function serviceAlarm(
  scope: Construct,
  stage: Stage,
  topic: sns.ITopic,
  name: string,
  metric: cloudwatch.IMetric,
  description: string,
): void {
  new cloudwatch.Alarm(scope, name, {
    alarmName: `${SERVICE_NAME}-${stage}-${name}`,
    alarmDescription: description,
    metric,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  }).addAlarmAction(new actions.SnsAction(topic));
}
