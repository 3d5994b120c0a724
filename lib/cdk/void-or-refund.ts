/**
 * The background void-or-refund in the cloud (docs/decisions.md "Background void-or-refund"): its
 * state machine from statemachines/void-or-refund.asl.json with one function per Task (a
 * TaskStateMachine), each task function with only the grants its work needs, and alarms on runs
 * that end without finishing. Only the void-or-refund API function may start (and describe) its
 * executions: `bindApiFunction`.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  VOID_OR_REFUND,
  VOID_OR_REFUND_DEFINITION,
  VOID_OR_REFUND_STATE_MACHINE_NAME,
  voidOrRefundTasks,
} from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { bindStateMachine } from './service-function';
import { TaskStateMachine, type TaskSettings } from './task-state-machine';

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
const TASK_ACCESS: Record<string, TaskSettings> = {
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
  /**
   * Where the task functions go (a nested stack of the stage).
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

export class ServiceVoidOrRefund extends TaskStateMachine {
  constructor(scope: Construct, id: string, props: ServiceVoidOrRefundProps) {
    super(scope, id, {
      stage: props.stage,
      table: props.table,
      definition: VOID_OR_REFUND_DEFINITION,
      stateMachineName: VOID_OR_REFUND_STATE_MACHINE_NAME(props.stage),
      stateMachineId: 'VoidOrRefund',
      tasks: voidOrRefundTasks,
      settingsOf: (task) => {
        const settings = TASK_ACCESS[task.handler];
        if (!settings) throw new Error(`no settings for void-or-refund task ${task.handler}`);
        return settings;
      },
      functionScope: props.functionScope,
    });
    this.alarmOnEndings(props.alarmTopic, {
      failed: {
        name: 'void-or-refund-failed',
        description:
          'A background void-or-refund failed after its retries: the group shows it running; repeating the request starts a new run',
      },
      timedOut: {
        name: 'void-or-refund-timed-out',
        description: 'A background void-or-refund timed out; repeating the request starts a new run',
      },
    });
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
