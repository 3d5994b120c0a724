/**
 * The background void-or-refund in the cloud (docs/decisions.md "Background void-or-refund"): its
 * state machine from statemachines/void-or-refund.asl.json (used unchanged: DefinitionBody.fromFile
 * + definitionSubstitutions naming one function per Task), each task function with only the grants
 * its work needs, and an alarm on runs that end without finishing. Only the void-or-refund API
 * function may start (and describe) its executions: `bindApiFunction`.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  VOID_OR_REFUND,
  VOID_OR_REFUND_DEFINITION,
  VOID_OR_REFUND_STATE_MACHINE_NAME,
  voidOrRefundTasks,
} from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindProcessor } from './processor';
import {
  bindStateMachine,
  bindTable,
  handlerSlug,
  logRetention,
  ServiceFunction,
  type TableAccess,
} from './service-function';

/** The longest one payment's reversal takes (contract/processing.ts). */
export const REVERSAL_SECONDS = VOID_OR_REFUND.reversalSeconds;

/** A ReverseBatch task: ⌈batch / concurrency⌉ rounds of reversals, with room for the reads. */
export const REVERSE_BATCH_TIMEOUT = Duration.seconds(
  Math.ceil(VOID_OR_REFUND.batchSize / VOID_OR_REFUND.concurrency) * REVERSAL_SECONDS + 24,
);

/**
 * The API function: up to 1,000 payments reversed within the request, none started in its last
 * seconds (lambdas/groups/void-or-refund.ts), so it gets as long as API Gateway waits less a second.
 */
export const VOID_OR_REFUND_API_TIMEOUT = Duration.seconds(VOID_OR_REFUND.apiTimeoutSeconds);

/** What each task does to the table (whether it calls the processor: contract/processing.ts). */
const TASK_ACCESS: Record<string, { table: TableAccess; timeout: Duration; memorySize?: number }> = {
  'void-or-refund/begin': { table: 'read', timeout: Duration.seconds(10) },
  'void-or-refund/reverse-batch': {
    table: 'readWrite',
    timeout: REVERSE_BATCH_TIMEOUT,
    memorySize: 1024,
  },
  'void-or-refund/complete': { table: 'write', timeout: Duration.seconds(10) },
};

export interface ServiceVoidOrRefundProps {
  readonly stage: Stage;
  readonly table: ITable;
  readonly alarmTopic: sns.ITopic;
}

export class ServiceVoidOrRefund extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly taskFunctions: ReadonlyMap<string, NodejsFunction>;

  constructor(scope: Construct, id: string, props: ServiceVoidOrRefundProps) {
    super(scope, id);
    const { stage, table } = props;

    const functions = new Map<string, NodejsFunction>();
    const substitutions: Record<string, string> = {};
    for (const task of voidOrRefundTasks) {
      const access = TASK_ACCESS[task.handler];
      if (!access) throw new Error(`no settings for void-or-refund task ${task.handler}`);
      const { fn } = new ServiceFunction(this, handlerSlug(task.handler), {
        handler: task.handler,
        stage,
        timeout: access.timeout,
        ...(access.memorySize !== undefined && { memorySize: access.memorySize }),
      });
      bindTable(fn, table, access.table);
      if (task.callsProcessor === true) bindProcessor(fn, stage);
      functions.set(task.handler, fn);
      substitutions[task.substitution] = fn.functionArn;
    }
    this.taskFunctions = functions;

    const logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `/aws/vendedlogs/states/${VOID_OR_REFUND_STATE_MACHINE_NAME(stage)}`,
      retention: logRetention(stage),
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'VoidOrRefund', {
      stateMachineName: VOID_OR_REFUND_STATE_MACHINE_NAME(stage),
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromFile(VOID_OR_REFUND_DEFINITION),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      // Payloads are ids and counters, but stay out of logs all the same.
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    for (const fn of functions.values()) fn.grantInvoke(this.stateMachine);

    const period = Duration.minutes(5);
    const alarm = (name: string, metric: ReturnType<sfn.StateMachine['metricFailed']>, description: string) =>
      serviceAlarm(this, stage, props.alarmTopic, name, metric, description);
    alarm(
      'void-or-refund-failed',
      this.stateMachine.metricFailed({ period }),
      'A background void-or-refund failed after its retries: the group shows it running; repeating the request starts a new run',
    );
    alarm(
      'void-or-refund-timed-out',
      this.stateMachine.metricTimedOut({ period }),
      'A background void-or-refund timed out; repeating the request starts a new run',
    );
  }

  /**
   * The void-or-refund API function: the machine's ARN and the right to start its executions and
   * describe them (a repeat answers the running one), and a timeout for 1,000 reversals.
   */
  bindApiFunction(fn: lambda.Function): void {
    bindStateMachine(fn, this.stateMachine, 'VOID_OR_REFUND_STATE_MACHINE_ARN');
    this.stateMachine.grantExecution(fn, 'states:DescribeExecution');
    (fn.node.defaultChild as lambda.CfnFunction).timeout = VOID_OR_REFUND_API_TIMEOUT.toSeconds();
  }
}
