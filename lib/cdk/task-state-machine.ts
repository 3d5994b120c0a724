/**
 * The one construct of a state machine whose Task states each invoke a function of the service
 * (the processing of a group, the background void-or-refund): its ASL file from statemachines/,
 * used unchanged (DefinitionBody.fromFile + definitionSubstitutions naming one function per Task),
 * one ServiceFunction per task with only the table actions its code uses (and the processor's
 * settings where it calls the processor), execution logs and tracing, and the alarms on
 * executions that failed or timed out (aborted ones: lib/cdk/monitoring.ts, for every machine).
 *
 * Constructs that own such a machine extend this class, so that the machine keeps its construct
 * path (and CloudFormation logical id); its task functions go to `functionScope`.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { TaskBinding } from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { bindProcessor } from './processor';
import { bindTable } from './access';
import { handlerSlug, logRetention, ServiceFunction } from './service-function';

/** A task function's settings. */
export interface TaskSettings {
  readonly timeout: Duration;
  /** @default - ServiceFunction's */
  readonly memorySize?: number;
  /** @default - none (ServiceFunction's reservedConcurrency) */
  readonly reservedConcurrency?: number;
}

interface TaskStateMachineProps {
  readonly stage: Stage;
  readonly table: ITable;
  /** The ASL file (statemachines/), deployed unchanged. */
  readonly definition: string;
  /** The machine's name in the account. */
  readonly stateMachineName: string;
  /** The machine's construct id beside its functions (its logical id is made from it). */
  readonly stateMachineId: string;
  /** The Task states and the handler each invokes (contract/processing.ts). */
  readonly tasks: readonly TaskBinding[];
  /** Each task's function settings. */
  readonly settingsOf: (task: TaskBinding) => TaskSettings;
  /**
   * The ASL file's other `${...}` placeholders, after the tasks' function ARNs.
   * @default - none
   */
  readonly substitutions?: Readonly<Record<string, string>>;
  /**
   * Where the task functions go: a nested stack of the stage (the machine, its role and its logs
   * stay here, so its name, ARN and execution history stay too).
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

/** An alarm's name (under the stage's prefix) and its description. */
interface AlarmText {
  readonly name: string;
  readonly description: string;
}

export class TaskStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  /** Each task's function, by handler module. */
  readonly taskFunctions: ReadonlyMap<string, NodejsFunction>;
  protected readonly stage: Stage;

  constructor(scope: Construct, id: string, props: TaskStateMachineProps) {
    super(scope, id);
    const { stage, table } = props;
    this.stage = stage;

    const functions = new Map<string, NodejsFunction>();
    const substitutions: Record<string, string> = {};
    for (const task of props.tasks) {
      const { fn } = new ServiceFunction(props.functionScope ?? this, handlerSlug(task.handler), {
        handler: task.handler,
        stage,
        ...props.settingsOf(task),
      });
      // The table actions the task's code uses (lib/cdk/access.ts).
      bindTable(fn, table, task.handler);
      if (task.callsProcessor === true) bindProcessor(fn, stage);
      functions.set(task.handler, fn);
      substitutions[task.substitution] = fn.functionArn;
    }
    Object.assign(substitutions, props.substitutions);
    this.taskFunctions = functions;

    const logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `/aws/vendedlogs/states/${props.stateMachineName}`,
      retention: logRetention(stage),
      removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, props.stateMachineId, {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromFile(props.definition),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      // Every state transition is logged; payloads are ids and counters, but stay out of logs.
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    // What grantInvoke grants, for every task function at once and in the tasks' order. With one
    // grant per function CDK merged the statements and sorted the merged resources by their
    // unresolved token strings ("${Token[TOKEN.103]}" before "${Token[TOKEN.97]}"), whose numbers
    // start from a random offset in each process. The nested stack's outputs were made in that
    // order, so its template, and the stage template's URL of it, could change from one synthesis
    // of the same code to the next, and a deploy then updated both for nothing.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [...functions.values()].flatMap((fn) => [fn.functionArn, `${fn.functionArn}:*`]),
      }),
    );
  }

  /** Alarms on an execution that failed, and on one that timed out (5-minute periods). */
  protected alarmOnEndings(topic: sns.ITopic, alarms: { failed: AlarmText; timedOut: AlarmText }): void {
    const period = Duration.minutes(5);
    const { failed, timedOut } = alarms;
    serviceAlarm(
      this,
      this.stage,
      topic,
      failed.name,
      this.stateMachine.metricFailed({ period }),
      failed.description,
    );
    serviceAlarm(
      this,
      this.stage,
      topic,
      timedOut.name,
      this.stateMachine.metricTimedOut({ period }),
      timedOut.description,
    );
  }
}
