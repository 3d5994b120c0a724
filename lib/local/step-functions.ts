/**
 * The local stand-in for Step Functions: the same ASL file run by aws-local-stepfunctions, each
 * Task state bound in-process to the handler the cloud binds through definitionSubstitutions,
 * behind a minimal Step Functions endpoint (StartExecution, DescribeExecution, StopExecution,
 * ListExecutions; AWS JSON 1.0) so that handlers use the real SFN client. Wait states wait real
 * time.
 *
 * For each execution it also keeps what Step Functions' quotas are about: the number of history
 * events the run would have written in the cloud (mapped from the local event log) and the
 * largest state payload.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';

type TaskFn = (input: unknown) => Promise<unknown>;
type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

interface ExecutionStats {
  /** History events the run would write in Step Functions (quota: 25,000). */
  historyEvents: number;
  /** Largest state input or output, bytes (quota: 256 KiB). */
  maxPayloadBytes: number;
  retries: number;
}

/** A top-level state the run went through (`GET /__local/executions/steps`, the tester CLI). */
interface LocalStep {
  name: string;
  type: string;
  enteredAt: string;
  exitedAt?: string;
}

/** Steps kept per execution: an hour of settlement polls is some 200; a run never needs more. */
const MAX_STEPS = 2_000;

interface LocalExecution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  stats: ExecutionStats;
  steps: LocalStep[];
  done: Promise<void>;
  abort: () => void;
}

class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Step Functions' history events per local event (Task: scheduled/started/succeeded too). */
const HISTORY_EVENTS: Record<string, (type: string) => number> = {
  ExecutionStarted: () => 1,
  ExecutionSucceeded: () => 1,
  ExecutionFailed: () => 1,
  ExecutionAborted: () => 1,
  ExecutionTimeout: () => 1,
  // TaskStateEntered + TaskScheduled + TaskStarted, MapStateEntered + MapStateStarted, or XStateEntered
  StateEntered: (type) => (type === 'Task' ? 3 : type === 'Map' ? 2 : 1),
  // TaskSucceeded + TaskStateExited, MapStateSucceeded + MapStateExited, or XStateExited
  StateExited: (type) => (type === 'Task' || type === 'Map' ? 2 : 1),
  // An inline Map's iterations write their events (the states above) into the execution's history,
  // and a start and an end each.
  MapIterationStarted: () => 1,
  MapIterationSucceeded: () => 1,
  MapIterationFailed: () => 1,
  // TaskFailed, then TaskScheduled + TaskStarted for the retry
  StateRetried: () => 3,
  StateFailed: () => 1,
  StateCaught: () => 1,
};

const payloadBytes = (value: unknown): number =>
  value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));

/** An ASL file with its `${Name}` placeholders substituted, as CDK's definitionSubstitutions do. */
function substitutedDefinition(
  definitionFile: string,
  substitutions: Record<string, string>,
): StateMachineDefinition {
  const text = readFileSync(definitionFile, 'utf8').replace(/\$\{(\w+)\}/g, (_m, name: string) => {
    const value = substitutions[name];
    if (value === undefined) throw new Error(`no substitution for \${${name}} in ${definitionFile}`);
    return value;
  });
  return JSON.parse(text) as StateMachineDefinition;
}

export class LocalStepFunctions {
  private readonly executions = new Map<string, LocalExecution>();
  private readonly machine: StateMachine;

  /**
   * `validate: false` skips aws-local-stepfunctions' check of the definition (a third of a second
   * of CPU, compiling its JSON schema): the local runtime's machines, checked once by
   * test/unit/local-state-machines.test.ts instead of at each of its starts.
   */
  constructor(
    definitionFile: string,
    readonly stateMachineArn: string,
    substitutions: Record<string, string>,
    private readonly tasks: Record<string, TaskFn>,
    { validate = true }: { validate?: boolean } = {},
  ) {
    this.machine = new StateMachine(substitutedDefinition(definitionFile, substitutions), {
      validationOptions: { checkArn: false, noValidate: !validate },
    });
  }

  private arnOf(name: string): string {
    return `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
  }

  start(name: string, input: string): LocalExecution {
    if (!/^[^\s:<>{}[\]?*"#%\\^|~`$&,;/]{1,80}$/.test(name)) {
      throw new SfnError(
        'InvalidName',
        `invalid execution name "${name}" (at most 80 characters, no ':' and the like)`,
      );
    }
    const existing = this.executions.get(name);
    if (existing) {
      // Step Functions: same name and input while running is the same execution; otherwise an error.
      if (existing.status === 'RUNNING' && existing.input === input) return existing;
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${this.arnOf(name)}'`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      throw new SfnError('InvalidExecutionInput', 'input is not valid JSON');
    }
    const run = this.machine.run(parsed as never, {
      overrides: { taskResourceLocalHandlers: this.tasks as never },
      context: { Execution: { Name: name, Id: this.arnOf(name) } },
      noThrowOnAbort: true,
    });
    const execution: LocalExecution = {
      executionArn: this.arnOf(name),
      stateMachineArn: this.stateMachineArn,
      name,
      status: 'RUNNING',
      startDate: new Date(),
      input,
      stats: { historyEvents: 0, maxPayloadBytes: payloadBytes(parsed), retries: 0 },
      steps: [],
      done: Promise.resolve(),
      abort: run.abort,
    };
    const watch = (async () => {
      for await (const event of run.eventLogs) {
        const stateType = 'state' in event ? event.state.type : '';
        execution.stats.historyEvents += HISTORY_EVENTS[event.type]?.(stateType) ?? 0;
        if (event.type === 'StateRetried') execution.stats.retries++;
        // Top-level states only (a Map's iterations carry an index).
        if ('state' in event && event.index === undefined) {
          const at = new Date(event.timestamp).toISOString();
          const { name, type } = event.state;
          if (event.type === 'StateEntered' && execution.steps.length < MAX_STEPS)
            execution.steps.push({ name, type, enteredAt: at });
          const open = execution.steps.findLast((s) => s.name === name && s.exitedAt === undefined);
          if (event.type === 'StateExited' && open) open.exitedAt = at;
        }
        if ('state' in event) {
          execution.stats.maxPayloadBytes = Math.max(
            execution.stats.maxPayloadBytes,
            payloadBytes(event.state.input),
            payloadBytes(event.state.output),
          );
        }
      }
    })();
    execution.done = run.result
      .then((output) => {
        execution.status = execution.status === 'RUNNING' ? 'SUCCEEDED' : execution.status;
        execution.output = JSON.stringify(output ?? null);
      })
      .catch((error: unknown) => {
        execution.status = 'FAILED';
        execution.error = (error as Error).name;
        execution.cause = (error as Error).message;
        console.error(`local step functions: execution ${name} failed: ${execution.cause}`);
      })
      .then(() => watch.catch(() => undefined))
      .finally(() => {
        execution.stopDate = new Date();
      });
    this.executions.set(name, execution);
    return execution;
  }

  describe(executionArn: string): LocalExecution {
    const execution = [...this.executions.values()].find((e) => e.executionArn === executionArn);
    if (!execution)
      throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  }

  list(statusFilter?: ExecutionStatus): LocalExecution[] {
    return [...this.executions.values()]
      .filter((e) => !statusFilter || e.status === statusFilter)
      .sort((a, b) => b.startDate.getTime() - a.startDate.getTime());
  }

  /**
   * StopExecution: a running execution ends ABORTED. As in the cloud, a task invocation already
   * under way is not interrupted (its Lambda runs to its end); the run takes no further step.
   */
  async stopExecution(executionArn: string): Promise<LocalExecution> {
    const execution = this.describe(executionArn);
    if (execution.status === 'RUNNING') {
      execution.status = 'ABORTED';
      execution.abort();
      await execution.done;
    }
    return execution;
  }

  /** Aborts running executions (runtime shutdown) and waits for them to end. */
  async stop(): Promise<void> {
    const running = this.list('RUNNING');
    for (const execution of running) {
      execution.status = 'ABORTED';
      execution.abort();
    }
    await Promise.all(running.map((e) => e.done));
  }
}

const seconds = (d: Date | undefined) => (d ? d.getTime() / 1000 : undefined);

export const executionJson = (e: LocalExecution) => ({
  executionArn: e.executionArn,
  stateMachineArn: e.stateMachineArn,
  name: e.name,
  status: e.status,
  startDate: seconds(e.startDate),
  stopDate: seconds(e.stopDate),
  input: e.input,
  output: e.output,
  error: e.error,
  cause: e.cause,
});

/** The AWS JSON 1.0 endpoint the SFN client talks to (AWS_ENDPOINT_URL_SFN), for every machine. */
export function createSfnServer(...machines: LocalStepFunctions[]): Server {
  const machineOf = (arn: unknown): LocalStepFunctions => {
    const found = machines.find((m) => m.stateMachineArn === arn);
    if (!found)
      throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(arn)}'`);
    return found;
  };
  // An execution ARN is its machine's ARN with `execution` for `stateMachine`, plus `:name`.
  const machineOfExecution = (arn: string): LocalStepFunctions =>
    machines.find((m) => arn.startsWith(`${m.stateMachineArn.replace(':stateMachine:', ':execution:')}:`)) ??
    machines[0]!;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      try {
        const action = String(req.headers['x-amz-target'] ?? '').replace('AWSStepFunctions.', '');
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
        switch (action) {
          case 'StartExecution': {
            const e = machineOf(body.stateMachineArn).start(
              String(body.name ?? crypto.randomUUID()),
              String(body.input ?? '{}'),
            );
            return reply(200, { executionArn: e.executionArn, startDate: seconds(e.startDate) });
          }
          case 'DescribeExecution':
            return reply(
              200,
              executionJson(
                machineOfExecution(String(body.executionArn)).describe(String(body.executionArn)),
              ),
            );
          case 'StopExecution': {
            const arn = String(body.executionArn);
            void machineOfExecution(arn)
              .stopExecution(arn)
              .then((e) => reply(200, { stopDate: seconds(e.stopDate) }))
              .catch((error: unknown) =>
                error instanceof SfnError
                  ? reply(400, { __type: error.type, message: error.message })
                  : reply(500, { __type: 'InternalFailure', message: (error as Error).message }),
              );
            return;
          }
          case 'ListExecutions': {
            const max = Number(body.maxResults ?? 100) || 100;
            const sfn = body.stateMachineArn === undefined ? machines[0]! : machineOf(body.stateMachineArn);
            const executions = sfn.list(body.statusFilter as ExecutionStatus | undefined).slice(0, max);
            return reply(200, {
              executions: executions.map(
                ({ executionArn, stateMachineArn, name, status, startDate, stopDate }) => ({
                  executionArn,
                  stateMachineArn,
                  name,
                  status,
                  startDate: seconds(startDate),
                  stopDate: seconds(stopDate),
                }),
              ),
            });
          }
          default:
            throw new SfnError(
              'UnknownOperationException',
              `the local endpoint does not implement ${action}`,
            );
        }
      } catch (error) {
        if (error instanceof SfnError) return reply(400, { __type: error.type, message: error.message });
        return reply(500, { __type: 'InternalFailure', message: (error as Error).message });
      }
    });
  });
}
