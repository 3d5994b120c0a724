/**
 * The return-rates job in the cloud (docs/product.md#return-rates): an EventBridge rule runs the
 * function that recomputes the merchants' Nacha return rates every hour (RETURN_RATES_JOB.schedule,
 * UTC); each run publishes how many merchants are at `alert` or `over`, and the stage's
 * `return-rates-attention` alarm calls the on-call while any is (the runbook says what to do). A
 * second alarm calls when runs fail, which would also leave that metric silent. The function lands
 * in the ScheduledFunctions nested stack with the other scheduled jobs (lib/cdk/stacks.ts); the
 * rule and the alarms stay in the stage stack.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { RETURN_RATES_JOB, RETURN_RATES_METRIC } from '../../contract/return-rates';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindTable } from './access';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceReturnRatesProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * Where the function goes (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceReturnRates extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;
  readonly attention: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ServiceReturnRatesProps) {
    super(scope, id);
    const { stage } = props;
    const { handler } = RETURN_RATES_JOB;
    this.fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(handler), {
      handler,
      stage,
      // Starts no merchant after RETURN_RATES_JOB.budgetSeconds; one takes a Query and a write.
      timeout: Duration.seconds(RETURN_RATES_JOB.timeoutSeconds),
    }).fn;
    // Reads the counters, states, marks and the merchant list; writes states, events, marks and its
    // cursor: the actions its code uses (npm run access).
    bindTable(this.fn, props.table, handler);
    this.rule = new events.Rule(this, 'Hourly', {
      ruleName: `${SERVICE_NAME}-${stage}-return-rates-hourly`,
      description: "Recomputes the merchants' Nacha return rates and announces changes of status",
      schedule: events.Schedule.cron(RETURN_RATES_JOB.schedule),
      // The next run an hour later does the same work: no retries of an old event.
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 1, maxEventAge: Duration.minutes(30) })],
    });
    this.attention = serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'return-rates-attention',
      new cloudwatch.Metric({
        namespace: RETURN_RATES_METRIC.namespace,
        metricName: RETURN_RATES_METRIC.name,
        dimensionsMap: { [RETURN_RATES_METRIC.dimension]: stage },
        statistic: 'Maximum',
        period: Duration.hours(1),
      }),
      "A merchant's bank-debit return rates are at 80% of a Nacha limit or above it (see the runbook)",
    );
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'return-rates-job-errors',
      this.fn.metricErrors({ period: Duration.hours(3) }),
      'The return-rates job keeps failing: statuses are not recomputed and the return-rates alarm cannot fire (see the runbook)',
      { threshold: 3 },
    );
  }
}
