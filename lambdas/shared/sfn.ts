/**
 * Starting and describing executions of the processing state machine (STATE_MACHINE_ARN).
 * Locally the SDK is pointed at the local Step Functions endpoint through AWS_ENDPOINT_URL_SFN.
 */
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { needed } from './config';
import { awsClient } from './tracer';

let client: SFNClient | undefined;
const sfnClient = (): SFNClient => (client ??= awsClient(new SFNClient({ maxAttempts: 4 })));

/** arn:...:stateMachine:NAME → arn:...:execution:NAME:EXECUTION */
export const executionArnOf = (machineArn: string, name: string): string =>
  `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/**
 * Starts a named execution of the processing state machine (STATE_MACHINE_ARN). Starting one that
 * exists already (same name) is not an error here: Step Functions runs a name once, so the existing
 * execution is the answer (each processing attempt has its own name, so this never hides a closed
 * attempt behind a new one).
 */
export const startExecution = (name: string, input: object): Promise<string> =>
  start(needed('stateMachineArn'), name, input);

/**
 * Starts a named execution of the background void-or-refund (VOID_OR_REFUND_STATE_MACHINE_ARN),
 * with the same answer for a name started already. Each machine has its own function, each reading
 * its own setting by name, so that what a function may start is read from its code
 * (scripts/function-access.ts).
 */
export const startVoidOrRefundExecution = (name: string, input: object): Promise<string> =>
  start(needed('voidOrRefundStateMachineArn'), name, input);

async function start(machine: string, name: string, input: object): Promise<string> {
  try {
    const out = await sfnClient().send(
      new StartExecutionCommand({ stateMachineArn: machine, name, input: JSON.stringify(input) }),
    );
    return out.executionArn!;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExists')
      return executionArnOf(machine, name);
    throw error;
  }
}

/** RUNNING, a closed status (SUCCEEDED, FAILED, TIMED_OUT, ABORTED), or `MISSING` (never started). */
export async function executionStatus(executionArn: string): Promise<string> {
  try {
    const out = await sfnClient().send(new DescribeExecutionCommand({ executionArn }));
    return out.status ?? 'MISSING';
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionDoesNotExist') return 'MISSING';
    throw error;
  }
}
