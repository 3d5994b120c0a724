/**
 * Starting executions of the processing state machine (STATE_MACHINE_ARN). Locally the SDK is
 * pointed at the local Step Functions endpoint through AWS_ENDPOINT_URL_SFN.
 */
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { needed } from './config';
import { tracer } from './tracer';

let client: SFNClient | undefined;

/** arn:...:stateMachine:NAME → arn:...:execution:NAME:EXECUTION */
const executionArnOf = (machineArn: string, name: string): string =>
  `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/**
 * Starts a named execution. Starting one that exists already (same name) is not an error here:
 * Step Functions runs a name once, so the existing execution is the answer.
 */
export async function startExecution(name: string, input: object): Promise<string> {
  client ??= tracer.captureAWSv3Client(new SFNClient({ maxAttempts: 4 }));
  const machine = needed('stateMachineArn');
  try {
    const out = await client.send(
      new StartExecutionCommand({ stateMachineArn: machine, name, input: JSON.stringify(input) }),
    );
    return out.executionArn!;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExists')
      return executionArnOf(machine, name);
    throw error;
  }
}
