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
  reverseBatchTimeoutSeconds,
  VOID_OR_REFUND,
  VOID_OR_REFUND_DEFINITION,
  VOID_OR_REFUND_STATE_MACHINE_NAME,
  voidOrRefundTasks,
} from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import type { ProcessorName } from '../../contract/processor';
import { bindStateMachineIfUsed } from './access';
import { processorOf } from './processor';
import { TaskStateMachine, type TaskSettings } from './task-state-machine';

/** The longest one payment's reversal takes (contract/processing.ts). */
export const REVERSAL_SECONDS = VOID_OR_REFUND.reversalSeconds;

/** A ReverseBatch task's timeout at the stage's processor (contract/processing.ts). */
const reverseBatchTimeout = (processor: ProcessorName): Duration =>
  Duration.seconds(reverseBatchTimeoutSeconds(processor));
/** The sandbox stages' ReverseBatch timeout. */
const REVERSE_BATCH_TIMEOUT = reverseBatchTimeout('sandbox');

/**
 * The API function: up to 1,000 payments reversed within the request, none started in its last
 * seconds (lambdas/groups/void-or-refund.ts), so it gets as long as API Gateway waits less a second.
 */
export const VOID_OR_REFUND_API_TIMEOUT = Duration.seconds(VOID_OR_REFUND.apiTimeoutSeconds);

/** Each task's function settings (its table actions come from its code: lib/cdk/access.ts). */
const TASK_SETTINGS: Record<string, TaskSettings> = {
  'void-or-refund/begin': { timeout: Duration.seconds(10) },
  'void-or-refund/reverse-batch': { timeout: REVERSE_BATCH_TIMEOUT, memorySize: 1024 },
  'void-or-refund/complete': { timeout: Duration.seconds(10) },
};

interface ServiceVoidOrRefundProps {
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
        const settings = TASK_SETTINGS[task.handler];
        if (!settings) throw new Error(`no settings for void-or-refund task ${task.handler}`);
        // Reversals take as long as the stage's processor needs (contract/processor.ts).
        return task.handler === 'void-or-refund/reverse-batch'
          ? { ...settings, timeout: reverseBatchTimeout(processorOf(scope)) }
          : settings;
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
   * An API function whose code reads VOID_OR_REFUND_STATE_MACHINE_ARN (the void-or-refund route):
   * the machine's ARN and the right to start its executions and describe them (a repeat answers the
   * running one), as its code calls them (lib/cdk/access.ts).
   */
  bindApiFunction(fn: lambda.Function, handler: string): void {
    bindStateMachineIfUsed(
      fn,
      handler,
      'voidOrRefundStateMachineArn',
      this.stateMachine,
      'VOID_OR_REFUND_STATE_MACHINE_ARN',
    );
  }
}
