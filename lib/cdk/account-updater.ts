/**
 * The daily account updater job in the cloud (docs/decisions.md "Account updater"): an
 * EventBridge rule runs the function that asks the processor for its account updates and applies
 * them to saved methods, once a day (ACCOUNT_UPDATER_JOB.schedule, UTC); an alarm calls the
 * on-call when a run fails (the next run picks up from the cursor). The function lands in the
 * nested stack of its handler folder (`methods`: ApiPayors, lib/cdk/stacks.ts); the rule and the
 * alarm stay in the stage stack.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ACCOUNT_UPDATER_JOB } from '../../contract/account-updater';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindTable } from './access';
import { bindProcessor } from './processor';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceAccountUpdaterProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * Where the function goes (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceAccountUpdater extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ServiceAccountUpdaterProps) {
    super(scope, id);
    const { stage } = props;
    const { handler } = ACCOUNT_UPDATER_JOB;
    this.fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(handler), {
      handler,
      stage,
      // Starts no update after ACCOUNT_UPDATER_JOB.budgetSeconds; one takes a few writes.
      timeout: Duration.seconds(ACCOUNT_UPDATER_JOB.timeoutSeconds),
    }).fn;
    // Reads the processor's updates, methods and payors; writes methods, marks, events, e-mails
    // and its cursor: the actions its code uses (npm run access).
    bindTable(this.fn, props.table, handler);
    bindProcessor(this.fn, stage);
    this.rule = new events.Rule(this, 'Daily', {
      ruleName: `${SERVICE_NAME}-${stage}-account-updater-daily`,
      description: "Applies the card networks' account updates to saved payment methods",
      schedule: events.Schedule.cron(ACCOUNT_UPDATER_JOB.schedule),
      // A failed run is retried; each update is applied once whatever runs.
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'account-updater-errors',
      this.fn.metricErrors({ period: Duration.days(1) }),
      'The daily account updater failed: saved cards keep their old details until a run succeeds (see the runbook)',
    );
  }
}
