/**
 * Processing in the cloud: the state machine from statemachines/process-group.asl.json with one
 * function per Task (a TaskStateMachine), the hourly EventBridge rule and its scheduler function,
 * the due start every minute, and alarms on failed executions and on groups processing too long
 * (the tick's GroupsProcessingTooLong metric).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { serviceAlarm, type AlarmOptions } from './alarms';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { scheduledTarget } from './scheduled-job';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  DUE_START_HANDLER,
  DUE_START_INTERVAL_SECONDS,
  DUE_START_TIMEOUT_SECONDS,
  PROCESS_GROUP_DEFINITION,
  PROCESSING_CONCURRENCY,
  processGroupTasks,
  SCHEDULER_HANDLER,
  SCHEDULER_TIMEOUT_SECONDS,
  settlementClock,
  STATE_MACHINE_NAME,
  STUCK_GROUPS_METRIC,
} from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { bindStateMachineIfUsed, bindTable } from './access';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';
import { TaskStateMachine } from './task-state-machine';
import { batchTimeoutSecondsOf } from './processor';

interface ServiceProcessingProps {
  readonly stage: Stage;
  readonly table: ITable;
  /**
   * Hourly schedule of the scheduler (UTC).
   * @default - minute 0 of every hour
   */
  readonly schedule?: events.Schedule;
  /**
   * Where the task functions go (a nested stack of the stage).
   * @default - this construct
   */
  readonly taskScope?: Construct;
  /**
   * Where the scheduler and the due start go. Not where the tasks are: the machine waits for its
   * tasks' stack and these functions wait for the machine.
   * @default - this construct
   */
  readonly starterScope?: Construct;
}

/**
 * Per-task function settings. The batch tasks charge (or give up) up to 250 payments per
 * invocation, 16 at once. BeginGroup counts through the group's keys to cut its ranges (Select
 * COUNT, about 1 MB of payments per query: some 40 queries for 100,000 payments).
 *
 * Lambda concurrency: each task function has its stage's reserved concurrency
 * (PROCESSING_CONCURRENCY): processing never holds more of the account than their sum, whatever a
 * slot holds, and the API's functions keep the rest. A throttled invocation is retried by the state
 * machine (Lambda.TooManyRequestsException, up to 100 times, 20 s apart at most) without charging
 * (docs/operating.md "The busiest slot").
 */
const TASK_SETTINGS: Record<string, { timeout: Duration; memorySize: number }> = {
  'process-group/begin-group': { timeout: Duration.minutes(2), memorySize: 512 },
  // At the sandbox: 2 minutes; at another processor, its own (CHARGING_BATCHES).
  'process-group/authorize-first-batch': { timeout: Duration.minutes(2), memorySize: 1024 },
  'process-group/authorize-batch': { timeout: Duration.minutes(2), memorySize: 1024 },
  'process-group/fail-batch': { timeout: Duration.minutes(2), memorySize: 512 },
  // One page of receipts (RECEIPTS_PAGE_SIZE, 500), 16 at once: about 32 rounds of two table calls.
  'process-group/emit-receipts': { timeout: Duration.minutes(2), memorySize: 512 },
};

/** The tasks that charge: their timeout is their stage's processor's (batchTimeoutSecondsOf). */
const CHARGING_BATCHES = ['process-group/authorize-first-batch', 'process-group/authorize-batch'];

export class ServiceProcessing extends TaskStateMachine {
  readonly scheduler: NodejsFunction;
  readonly dueStart: NodejsFunction;
  readonly rule: events.Rule;
  readonly alarmTopic: sns.Topic;
  private readonly starterScope: Construct;

  constructor(scope: Construct, id: string, props: ServiceProcessingProps) {
    const { stage, table } = props;
    super(scope, id, {
      stage,
      table,
      definition: PROCESS_GROUP_DEFINITION,
      stateMachineName: STATE_MACHINE_NAME(stage),
      stateMachineId: 'ProcessGroup',
      tasks: processGroupTasks,
      settingsOf: (task) => ({
        ...(TASK_SETTINGS[task.handler] ?? { timeout: Duration.seconds(30) }),
        // The batches that charge take as long as the stage's processor needs (contract/processor.ts).
        ...(CHARGING_BATCHES.includes(task.handler) && {
          timeout: Duration.seconds(batchTimeoutSecondsOf(scope)),
        }),
        reservedConcurrency: PROCESSING_CONCURRENCY[stage][task.handler],
      }),
      // Production waits for the cut-off; other stages poll, honouring the test clock.
      substitutions: { SettlementClock: settlementClock(stage) },
      functionScope: props.taskScope,
    });
    this.starterScope = props.starterScope ?? this;

    // Supervision: the tick also describes the executions of claimed groups to re-drive closed
    // ones (its code calls DescribeExecution: lib/cdk/access.ts grants it).
    const scheduler = this.starter(SCHEDULER_HANDLER, table, Duration.seconds(SCHEDULER_TIMEOUT_SECONDS));
    this.scheduler = scheduler;
    this.rule = new events.Rule(this, 'Hourly', {
      ruleName: `${SERVICE_NAME}-${stage}-hourly`,
      description: 'Processes the payment groups due in each UTC hour',
      schedule: props.schedule ?? events.Schedule.cron({ minute: '0' }),
      targets: [new targets.LambdaFunction(scheduler, { retryAttempts: 4, maxEventAge: Duration.hours(1) })],
    });

    // The due start: groups created in (or moved into) the current hour after its tick start
    // within a minute (docs/decisions.md, "The current hour").
    const dueStart = this.starter(DUE_START_HANDLER, table, Duration.seconds(DUE_START_TIMEOUT_SECONDS));
    this.dueStart = dueStart;
    new events.Rule(this, 'EveryMinute', {
      ruleName: `${SERVICE_NAME}-${stage}-due-sweep`,
      description: 'Starts the pending groups of the current and earlier hours',
      schedule: events.Schedule.rate(Duration.seconds(DUE_START_INTERVAL_SECONDS)),
      // A missed minute is caught up by the next one: no retries, no old events.
      targets: [scheduledTarget(dueStart, 0, Duration.minutes(2))],
    });

    this.alarmTopic = new sns.Topic(this, 'Alarms', { topicName: `${SERVICE_NAME}-${stage}-alarms` });
    const alarm = (name: string, metric: cloudwatch.IMetric, description: string, options?: AlarmOptions) =>
      serviceAlarm(this, stage, this.alarmTopic, name, metric, description, options);
    const period = Duration.minutes(5);
    this.alarmOnEndings(this.alarmTopic, {
      failed: {
        name: 'executions-failed',
        description:
          'A group processing execution failed: the next hourly tick re-drives its group (see the runbook)',
      },
      timedOut: { name: 'executions-timed-out', description: 'A group processing execution timed out' },
    });
    // The tick's count of groups processing longer than an execution may run (it re-drives closed
    // executions itself; a group still counted is one that supervision could not unstick).
    alarm(
      'groups-processing-too-long',
      new cloudwatch.Metric({
        namespace: STUCK_GROUPS_METRIC.namespace,
        metricName: STUCK_GROUPS_METRIC.name,
        dimensionsMap: { [STUCK_GROUPS_METRIC.dimension]: stage },
        statistic: 'Maximum',
        period: Duration.hours(1),
      }),
      'A group has been "processing" longer than an execution may run (see the runbook)',
    );
    alarm(
      'due-sweep-errors',
      dueStart.metricErrors({ period: Duration.minutes(15) }),
      'The due start failed; groups of the current hour wait for the next minute or tick',
      { threshold: 3 },
    );
    alarm(
      'scheduler-errors',
      scheduler.metricErrors({ period }),
      'The hourly scheduler failed; due groups wait for the next tick',
    );
  }

  /** A function that claims due groups and starts this machine's executions for them. */
  private starter(handler: string, table: ITable, timeout: Duration): NodejsFunction {
    const { fn } = new ServiceFunction(this.starterScope, handlerSlug(handler), {
      handler,
      stage: this.stage,
      timeout,
    });
    bindTable(fn, table, handler);
    if (!bindStateMachineIfUsed(fn, handler, 'stateMachineArn', this.stateMachine, 'STATE_MACHINE_ARN'))
      throw new Error(`${handler} starts no execution: it is not a starter`);
    return fn;
  }
}
