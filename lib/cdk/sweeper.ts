/**
 * The sweeper (docs/architecture.md#sweeper): one function run every SWEEP_INTERVAL_MINUTES by an
 * EventBridge rule, settling stale Pending sales and refunds, reserved voids and due reversals
 * with their processor keys; an alarm when it fails.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { scheduledTarget } from './scheduled-job';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { SWEEP_INTERVAL_MINUTES, SWEEP_TIMEOUT_SECONDS, SWEEPER_HANDLER } from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindProcessor } from './processor';
import { bindTable } from './access';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceSweeperProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * Where the functions go (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceSweeper extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ServiceSweeperProps) {
    super(scope, id);
    const { stage, table, alarmTopic } = props;
    this.fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(SWEEPER_HANDLER), {
      handler: SWEEPER_HANDLER,
      stage,
      // Starts work for SWEEP_BUDGET_SECONDS (each item bounded by the processor timeout, 3 s,
      // 8 at a time), then finishes what it started.
      timeout: Duration.seconds(SWEEP_TIMEOUT_SECONDS),
    }).fn;
    bindTable(this.fn, table, SWEEPER_HANDLER);
    bindProcessor(this.fn, stage);
    this.rule = new events.Rule(this, 'Every', {
      ruleName: `${SERVICE_NAME}-${stage}-sweep`,
      description: 'Settles stale Pending sales and refunds, reserved voids and due reversals',
      schedule: events.Schedule.rate(Duration.minutes(SWEEP_INTERVAL_MINUTES)),
      // A missed run is not retried: the next one comes within minutes and does the same work.
      targets: [scheduledTarget(this.fn, 0)],
    });
    serviceAlarm(
      this,
      stage,
      alarmTopic,
      'sweeper-errors',
      this.fn.metricErrors({ period: Duration.minutes(15) }),
      'The sweeper failed: stale Pending work waits for its next run (see the runbook)',
    );
  }
}
