/**
 * A scheduled job in the cloud: an EventBridge rule runs one function (in `functionScope`, a
 * nested stack of the stage) that reads and writes the table and may call the processor; an alarm
 * calls the on-call when a run fails. The rule and the alarm stay in the stage stack.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindTable } from './access';
import { bindProcessor } from './processor';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

/**
 * The rule's target: the function, run `retryAttempts` more times after a failed run. The rule's
 * retry policy covers only EventBridge's delivery of the event; Lambda retries a failed
 * asynchronous run twice more of its own, so a job that retries nothing says so to Lambda too
 * (else a run that failed or timed out ran again beside the next scheduled one).
 */
export function scheduledTarget(
  fn: NodejsFunction,
  retryAttempts: number,
  maxEventAge?: Duration,
): targets.LambdaFunction {
  if (retryAttempts === 0) fn.configureAsyncInvoke({ retryAttempts: 0 });
  return new targets.LambdaFunction(fn, { retryAttempts, ...(maxEventAge && { maxEventAge }) });
}

export interface ScheduledJobProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
  /** @default - this construct */
  readonly functionScope?: Construct;
  readonly handler: string;
  readonly timeout: Duration;
  readonly schedule: events.Schedule;
  /** The rule's construct id and its name's suffix (`<service>-<stage>-<suffix>`). */
  readonly rule: { id: string; nameSuffix: string; description: string };
  /** Retries of a failed run (0: the next run does the same work). */
  readonly retryAttempts: number;
  readonly alarm: { name: string; period: Duration; description: string };
}

export class ScheduledJob extends Construct {
  readonly fn: NodejsFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    const { stage, handler } = props;
    this.fn = new ServiceFunction(props.functionScope ?? this, handlerSlug(handler), {
      handler,
      stage,
      timeout: props.timeout,
    }).fn;
    // The table actions its code uses (npm run access), and the processor's secret.
    bindTable(this.fn, props.table, handler);
    bindProcessor(this.fn, stage);
    this.rule = new events.Rule(this, props.rule.id, {
      ruleName: `${SERVICE_NAME}-${stage}-${props.rule.nameSuffix}`,
      description: props.rule.description,
      schedule: props.schedule,
      targets: [scheduledTarget(this.fn, props.retryAttempts)],
    });
    serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      props.alarm.name,
      this.fn.metricErrors({ period: props.alarm.period }),
      props.alarm.description,
    );
  }
}
