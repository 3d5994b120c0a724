/**
 * The daily series job in the cloud (docs/decisions.md "Series"): an EventBridge rule runs the
 * function that creates the groups of series occurrences due before its next run, once a day
 * (SERIES_JOB.schedule, UTC); an alarm calls the on-call when a run fails (the hourly tick catches
 * up within the hour meanwhile). The function lands in the nested stack of its handler folder
 * (`series`: ApiSeries, lib/cdk/stacks.ts); the rule and the alarm stay in the stage stack.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { SERIES_JOB } from '../../contract/series';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindTable } from './access';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceSeriesProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * Where the function goes (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceSeries extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ServiceSeriesProps) {
    super(scope, id);
    const { stage } = props;
    this.fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(SERIES_JOB.handler), {
      handler: SERIES_JOB.handler,
      stage,
      // Starts groups for SERIES_JOB.budgetSeconds, then finishes the one it started (~15 s at most).
      timeout: Duration.seconds(SERIES_JOB.timeoutSeconds),
      // A 10,000-payment group is built in memory before it is written, as the create function does.
      memorySize: 1024,
    }).fn;
    // Reads series, payors and methods; writes groups, payments, notices, events and series: the
    // actions its code uses (npm run access).
    bindTable(this.fn, props.table, SERIES_JOB.handler);
    this.rule = new events.Rule(this, 'Daily', {
      ruleName: `${SERVICE_NAME}-${stage}-series-daily`,
      description: "Creates the groups of the series' occurrences due before the next day's run",
      schedule: events.Schedule.cron(SERIES_JOB.schedule),
      // A failed run is retried (each retry creates only what is still missing); the hourly tick
      // catches up on whatever falls due within its hour anyway.
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'series-job-errors',
      this.fn.metricErrors({ period: Duration.days(1) }),
      "The daily series job failed: the hourly tick creates the occurrences' groups within their hour (see the runbook)",
    );
  }
}
