/**
 * Daily reconciliation in the cloud (docs/architecture.md#reconciliation): an EventBridge rule runs
 * the reconcile function once a day; the function logs its JSON report, a metric filter turns the
 * report's `unhealed` count into a metric, and an alarm calls the on-call when it is above 0 (or
 * when the job itself fails, since a failed run reports nothing).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { RECONCILIATION } from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindProcessor } from './processor';
import { bindTable } from './access';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

/** The metric of a stage's unhealed differences (one namespace per stage: both may share an account). */
const reconciliationMetric = (stage: Stage) => ({
  namespace: `${SERVICE_NAME}-${stage}`,
  metricName: 'ReconciliationUnhealed',
});

interface ServiceReconciliationProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * When it runs (UTC): after the day's last settlement cut-off has passed.
   * @default every day at 02:15 UTC
   */
  readonly schedule?: events.Schedule;
  /**
   * Where the functions go (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceReconciliation extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;
  readonly unhealed: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: ServiceReconciliationProps) {
    super(scope, id);
    const { stage } = props;
    const fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(RECONCILIATION.handler), {
      handler: RECONCILIATION.handler,
      stage,
      // A day's activity is read page by page; the sweeper may replay processor calls.
      timeout: Duration.minutes(15),
      memorySize: 1024,
    });
    this.fn = fn.fn;
    // Reads and writes: the sweeper, run between the comparisons, settles Pending work.
    bindTable(this.fn, props.table, RECONCILIATION.handler);
    bindProcessor(this.fn, stage);

    this.rule = new events.Rule(this, 'Daily', {
      ruleName: `${SERVICE_NAME}-${stage}-reconciliation`,
      description: "Reconciles the last day's records with the processor",
      schedule: props.schedule ?? events.Schedule.cron({ minute: '15', hour: '2' }),
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });

    new logs.MetricFilter(this, 'UnhealedFilter', {
      logGroup: fn.logGroup,
      filterPattern: logs.FilterPattern.stringValue('$.message', '=', RECONCILIATION.reportMessage),
      metricNamespace: reconciliationMetric(stage).namespace,
      metricName: reconciliationMetric(stage).metricName,
      metricValue: '$.unhealed',
    });
    this.unhealed = new cloudwatch.Metric({
      ...reconciliationMetric(stage),
      statistic: 'Maximum',
      period: Duration.days(1),
    });
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'reconciliation-unhealed',
      this.unhealed,
      'Reconciliation found differences the sweeper could not heal (see the runbook)',
    );
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'reconciliation-errors',
      this.fn.metricErrors({ period: Duration.days(1) }),
      'The daily reconciliation failed; no report was made',
    );
  }
}
