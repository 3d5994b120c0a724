/**
 * Group processing in the cloud: the state machine deployed from statemachines/process-group.asl.json
 * with one function per Task, the hourly scheduler, who may start executions, and the alarms.
 */
import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  DUE_START_HANDLER,
  PROCESS_GROUP_DEFINITION,
  PROCESSING_CONCURRENCY,
  processGroupTasks,
  SCHEDULER_HANDLER,
  settlementClock,
  STATE_MACHINE_NAME,
  STUCK_GROUPS_METRIC,
} from '#contract/processing';
import { MAX_FAN_OUT, rangePlan, stuckGroupsMetricLine } from '#domain/processing';
import { routeList as routes } from '#contract/routes/index';
import { accessOf, readsSetting } from '#lib/cdk/access';
import type { Stage } from '#contract/stage';
import { statesOf } from '#support/asl-states';
import {
  actionsOf,
  emittedMetric,
  flatten,
  functionIdOf,
  functionName,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  stackTemplates,
  stageSynthOf,
  SYNTH_TIMEOUT_MS,
  type Resource,
  type Statement,
  isDataKeyStatement,
  type StageFacts,
} from '#support/cdk/synth';

/** The non-production routes' handlers: the triggers start executions, the test clock does not. */
const NON_PROD_HANDLERS = [...new Set(routes.filter((r) => r.nonProdOnly).map((r) => r.handler))];
const TRIGGER_HANDLERS = NON_PROD_HANDLERS.filter((h) => readsSetting(h, 'stateMachineArn'));
/** The actions of one service a handler's code uses (lib/cdk/function-access.json). */
const actionsUsed = (handler: string, service: string): string[] =>
  accessOf(handler).actions.filter((a) => a.startsWith(`${service}:`));

const definitionFile = (): string => readFileSync(PROCESS_GROUP_DEFINITION, 'utf8');

/** The definition as deployed: an inline DefinitionString, or the file asset DefinitionS3Location names. */
function deployedDefinition(facts: StageFacts, stateMachine: Resource): string {
  const p = props(stateMachine);
  if (p.DefinitionString !== undefined) return flatten(p.DefinitionString);
  const location = p.DefinitionS3Location as { Bucket: unknown; Key: unknown } | undefined;
  if (location === undefined || typeof location.Key !== 'string') {
    throw new Error(
      'state machine has neither a DefinitionString nor a DefinitionS3Location with a literal Key',
    );
  }
  const staged = facts.stagedDefinitions[location.Key];
  if (staged === undefined) throw new Error(`no staged definition with key ${location.Key}`);
  return staged;
}

const getAttArn = (id: string): { 'Fn::GetAtt': [string, string] } => ({ 'Fn::GetAtt': [id, 'Arn'] });

const isOnStates = (s: Statement): boolean => actionsOf(s).some((a) => a.startsWith('states:') || a === '*');

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s processing', (stage: Stage) => {
  const prod = stage === 'prod';
  let facts: StageFacts;
  let template: Template;
  let functions: Record<string, Resource>;
  let tableId: string;
  let stateMachineId: string;
  let stateMachine: Resource;
  let schedulerId: string;
  let taskIds: Map<string, string>;
  beforeAll(() => {
    ({ template, ...facts } = stageSynthOf(stage));
    functions = resourcesOf(template, 'AWS::Lambda::Function');
    const tables = Object.keys(resourcesOf(template, 'AWS::DynamoDB::Table'));
    // The processing machine (the background void-or-refund has its own: void-or-refund.test.ts).
    const machines = Object.entries(resourcesOf(template, 'AWS::StepFunctions::StateMachine')).filter(
      ([, m]) => props(m).StateMachineName === STATE_MACHINE_NAME(stage),
    );
    expect(tables).toHaveLength(1);
    expect(machines).toHaveLength(1);
    tableId = tables[0] as string;
    [stateMachineId, stateMachine] = machines[0] as [string, Resource];
    schedulerId = functionIdOf(template, stage, SCHEDULER_HANDLER);
    taskIds = new Map(processGroupTasks.map((t) => [t.handler, functionIdOf(template, stage, t.handler)]));
  }, SYNTH_TIMEOUT_MS);

  const fn = (id: string): Resource => functions[id] as Resource;
  const statementsOf = (id: string): Statement[] => roleStatements(template, roleIdOf(fn(id)));
  /** Statements on anything but the table and X-Ray. */
  const beyondTable = (id: string): Statement[] => {
    const tableArn = `\${${tableId}.Arn}`;
    return statementsOf(id).filter((s) => {
      const actions = actionsOf(s);
      if (s.Effect === 'Allow' && actions.every((a) => a.startsWith('xray:'))) return false;
      // The Deny of registry, grant and audit writes (least-privilege.test.ts) restricts the table.
      if (s.Effect === 'Deny' && s.Sid === 'NoWritesOfRegistryGrantsOrAudit') return false;
      // Prod's table key goes with the table (kms.test.ts).
      if (isDataKeyStatement(s)) return false;
      return !(
        s.Effect === 'Allow' &&
        actions.every((a) => a.startsWith('dynamodb:') && a !== 'dynamodb:*') &&
        resourcesOfStatement(s).every((r) => r === tableArn || r === `${tableArn}/index/*`)
      );
    });
  };
  const expectTableReadWrite = (id: string): void => {
    const actions = statementsOf(id).flatMap(actionsOf);
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]),
    );
    expect(props(fn(id)).Environment).toMatchObject({ Variables: { TABLE_NAME: { Ref: tableId } } });
  };
  const startExecutionOnly = (): unknown[] => [
    ['Allow', ['states:StartExecution'], [`\${${stateMachineId}}`]],
  ];
  const stateGrants = (id: string): unknown[] =>
    statementsOf(id)
      .filter(isOnStates)
      .map((s) => [s.Effect, actionsOf(s), resourcesOfStatement(s)]);

  describe('state machine', () => {
    it('deploys statemachines/process-group.asl.json unchanged', () => {
      const deployed = deployedDefinition(facts, stateMachine);
      expect(JSON.parse(deployed)).toEqual(JSON.parse(definitionFile()));
    });

    it('runs the batch loop per key range in an inline Map whose concurrency is bounded (issue 10, item 1)', () => {
      interface MapState {
        Type: string;
        ItemsPath?: string;
        MaxConcurrency?: number;
        MaxConcurrencyPath?: string;
        ResultPath?: string;
        ItemProcessor?: { ProcessorConfig?: { Mode?: string }; States: Record<string, unknown> };
      }
      const states = (JSON.parse(definitionFile()) as { States: Record<string, MapState> }).States;
      const map = states.AuthorizeRanges!;
      expect(map).toMatchObject({
        Type: 'Map',
        ItemsPath: '$.ranges',
        MaxConcurrencyPath: '$.fanOut',
        ResultPath: '$.ranges',
        ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' } },
      });
      // No fixed MaxConcurrency (0 would be unbounded): BeginGroup's fanOut bounds it, and that is
      // PROCESS_FAN_OUT capped at the 40 an inline Map runs at once; the ranges are no more.
      expect(map.MaxConcurrency).toBeUndefined();
      expect(Object.keys(map.ItemProcessor!.States).sort()).toEqual(
        [
          'NextBatch',
          'AuthorizeFirstBatch',
          'AuthorizeBatch',
          'FailBatch',
          'MorePayments',
          'RangeDone',
        ].sort(),
      );
      expect(rangePlan(100_000, 250, 10_000).ranges).toBe(MAX_FAN_OUT);
      expect(MAX_FAN_OUT).toBe(40);
      // Only the Map's iterations charge: no batch task outside it.
      expect(Object.keys(states)).not.toContain('AuthorizeBatch');
    });

    it('gives BeginGroup time to count through a group of 100,000 payments to cut its ranges', () => {
      expect(props(fn(taskIds.get('process-group/begin-group')!)).Timeout).toBeGreaterThanOrEqual(120);
    });

    it('substitutes each Task resource with the ARN of its own handler function, and the stage’s settlement clock', () => {
      const substitutions = props(stateMachine).DefinitionSubstitutions as Record<string, unknown>;
      expect(Object.keys(substitutions).sort()).toEqual(
        [...processGroupTasks.map((t) => t.substitution), 'SettlementClock'].sort(),
      );
      // Production waits for the cut-off; other stages poll, honouring the test clock.
      expect(substitutions.SettlementClock).toBe(stage === 'prod' ? 'cut-off' : 'test-clock');
      expect(substitutions.SettlementClock).toBe(settlementClock(stage));
      for (const task of processGroupTasks) {
        expect(substitutions[task.substitution]).toEqual(
          getAttArn(functionIdOf(template, stage, task.handler)),
        );
      }
      // One function per task.
      expect(new Set(taskIds.values()).size).toBe(processGroupTasks.length);

      // The file's side: every placeholder is substituted, and every Task state calls its binding.
      const text = definitionFile();
      const placeholders = new Set([...text.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]));
      expect([...placeholders].sort()).toEqual(Object.keys(substitutions).sort());
      const tasks = new Map(
        [...statesOf(PROCESS_GROUP_DEFINITION)].filter(([, state]) => state.Type === 'Task'),
      );
      expect([...tasks.keys()].sort()).toEqual(processGroupTasks.map((t) => t.state).sort());
      for (const task of processGroupTasks) {
        expect(tasks.get(task.state)?.Resource).toBe(`\${${task.substitution}}`);
      }
    });

    it('is a STANDARD, traced state machine logging every event, without execution data, to its log group', () => {
      const p = props(stateMachine);
      expect(p).toMatchObject({
        StateMachineName: STATE_MACHINE_NAME(stage),
        StateMachineType: 'STANDARD',
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
      });
      const destinations = (p.LoggingConfiguration as { Destinations: unknown[] }).Destinations;
      expect(destinations).toHaveLength(1);
      const logGroupArn = (destinations[0] as { CloudWatchLogsLogGroup: { LogGroupArn: unknown } })
        .CloudWatchLogsLogGroup.LogGroupArn as { 'Fn::GetAtt': [string, string] };
      expect(logGroupArn['Fn::GetAtt'][1]).toBe('Arn');
      const logGroup = resourcesOf(template, 'AWS::Logs::LogGroup')[logGroupArn['Fn::GetAtt'][0]];
      expect(logGroup).toBeDefined();
      expect(props(logGroup as Resource)).toMatchObject({
        LogGroupName: `/aws/vendedlogs/states/${STATE_MACHINE_NAME(stage)}`,
        RetentionInDays: prod ? 365 : 30,
      });
      expect(logGroup?.DeletionPolicy).toBe(prod ? 'Retain' : 'Delete');
    });

    it('may invoke exactly the task functions, and touch nothing else but its logs and traces', () => {
      const roleId = (props(stateMachine).RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const role = resourcesOf(template, 'AWS::IAM::Role')[roleId];
      expect(props(role as Resource).AssumeRolePolicyDocument).toMatchObject({
        Statement: [expect.objectContaining({ Principal: { Service: 'states.amazonaws.com' } })],
      });
      expect(props(role as Resource).ManagedPolicyArns).toBeUndefined();
      const statements = roleStatements(template, roleId);
      for (const s of statements) expect(s.Effect).toBe('Allow');
      const invoke = statements.filter((s) => actionsOf(s).some((a) => !/^(logs|xray):/.test(a)));
      expect(new Set(invoke.flatMap(actionsOf))).toEqual(new Set(['lambda:InvokeFunction']));
      const taskArns = [...taskIds.values()].map((id) => `\${${id}.Arn}`);
      const invocable = invoke.flatMap(resourcesOfStatement);
      // The functions, and their versions and aliases (`<arn>:*`), of the tasks and of no one else.
      expect([...new Set(invocable.map((r) => r.replace(/:\*$/, '')))].sort()).toEqual(taskArns.sort());
      // Log delivery and X-Ray take no resource ARN; they are the only other grants.
      for (const s of statements.filter((x) => !invoke.includes(x))) {
        expect(resourcesOfStatement(s)).toEqual(['*']);
        expect(actionsOf(s).every((a) => /^(logs|xray):\w+$/.test(a) && !a.endsWith(':*'))).toBe(true);
      }
    });
  });

  describe('functions', () => {
    it('has one function per Task in the processing functions stack, and the scheduler and the due start with the scheduled functions', () => {
      // The machine's tasks and the functions that start it are in two stacks: the machine (in
      // the stage stack) waits for its tasks' stack, and the starters' stack waits for the machine.
      const namesIn = (id: string): unknown[] => {
        const found = stackTemplates(facts).find((s) => s.id === id);
        if (found === undefined) throw new Error(`no nested stack ${id}`);
        return Object.values(resourcesOf(found.template, 'AWS::Lambda::Function')).map(
          (f) => props(f).FunctionName,
        );
      };
      expect(namesIn('ProcessingFunctions').sort()).toEqual(
        processGroupTasks.map((t) => functionName(stage, t.handler)).sort(),
      );
      expect(namesIn('ScheduledFunctions')).toEqual(
        expect.arrayContaining([SCHEDULER_HANDLER, DUE_START_HANDLER].map((h) => functionName(stage, h))),
      );
    });

    it('runs every task function and the scheduler on Node.js 22, arm64, traced, for this stage', () => {
      for (const [handler, id] of [...taskIds, [SCHEDULER_HANDLER, schedulerId] as const]) {
        expect(props(fn(id))).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
          Description: `${handler} (${stage})`,
          Environment: {
            Variables: {
              SERVICE_STAGE: stage,
              POWERTOOLS_SERVICE_NAME: 'scheduled-payments',
              POWERTOOLS_LOG_LEVEL: 'INFO',
            },
          },
        });
      }
    });

    it('gives each task function the table actions its code uses (read only where it only reads) and nothing else', () => {
      for (const task of processGroupTasks) {
        const id = taskIds.get(task.handler)!;
        const actions = statementsOf(id)
          .filter((st) => st.Effect === 'Allow')
          .flatMap(actionsOf)
          .filter((a) => a.startsWith('dynamodb:'));
        expect([task.handler, actions.sort()]).toEqual([task.handler, actionsUsed(task.handler, 'dynamodb')]);
        expect(props(fn(id)).Environment).toMatchObject({ Variables: { TABLE_NAME: { Ref: tableId } } });
        if (task.handler === 'process-group/check-settlement')
          expect(actions.filter((a) => /Put|Update|Delete|Write/.test(a))).toEqual([]);
        expect(beyondTable(id)).toEqual([]);
        expect(Object.keys((props(fn(id)).Environment as { Variables: object }).Variables)).not.toContain(
          'STATE_MACHINE_ARN',
        );
      }
    });

    it("reserves the stage's share of the account's concurrency for each task function (issue 24)", () => {
      const share = PROCESSING_CONCURRENCY[stage];
      let sum = 0;
      for (const [handler, id] of taskIds) {
        expect([handler, props(fn(id)).ReservedConcurrentExecutions]).toEqual([handler, share[handler]]);
        sum += share[handler]!;
      }
      // The API's functions keep the rest of a default account (1,000), and Lambda's 100 unreserved.
      expect(sum).toBeLessThanOrEqual(1000 - 400);
    });

    it("defect: docs/operating.md asked a dev account for 183 executions, less than its reservations (97 with the webhook deliveries') and Lambda's 100 unreserved: the deploy failed", () => {
      const docs = readFileSync('docs/operating.md', 'utf8');
      const asked = /at least 1,000 for prod and (\d+) for dev/.exec(docs);
      expect(asked).not.toBeNull();
      const account = stage === 'prod' ? 1000 : Number(asked![1]);
      const reserved = Object.values(resourcesOf(template, 'AWS::Lambda::Function'))
        .map((f) => Number(props(f).ReservedConcurrentExecutions ?? 0))
        .reduce((a, b) => a + b, 0);
      expect(account - reserved).toBeGreaterThanOrEqual(100);
      if (stage === 'dev') expect(account).toBe(reserved + 100);
    });

    it('names the processor adapter to the tasks that charge or give up on charges, and to no other function', () => {
      // AuthorizeBatch charges; FailBatch records give-ups whose reversals the sweeper makes, and
      // loads the adapter (lambdas/core/sale.ts). The others only read and write the table.
      const calling = [
        'process-group/authorize-first-batch',
        'process-group/authorize-batch',
        'process-group/fail-batch',
      ];
      for (const [handler, id] of taskIds) {
        const variables = (props(fn(id)).Environment as { Variables: Record<string, unknown> }).Variables;
        expect([handler, variables.PROCESSOR]).toEqual([
          handler,
          calling.includes(handler) ? 'sandbox' : undefined,
        ]);
      }
      const scheduler = (props(fn(schedulerId)).Environment as { Variables: object }).Variables;
      expect(Object.keys(scheduler)).not.toContain('PROCESSOR');
    });

    it('lets nothing invoke a task function through a resource policy (the state machine uses its role)', () => {
      const taskArns = new Set([...taskIds.values()].map((id) => `\${${id}.Arn}`));
      const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).map(props);
      expect(permissions.filter((p) => taskArns.has(flatten(p.FunctionName)))).toEqual([]);
    });
  });

  describe('hourly schedule', () => {
    it('the current hour: invokes the due start every minute, which may start executions and nothing else on Step Functions', () => {
      const dueStartId = functionIdOf(template, stage, DUE_START_HANDLER);
      const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter((r) =>
        ((props(r).Targets ?? []) as { Arn: unknown }[]).some(
          (t) => flatten(t.Arn) === `\${${dueStartId}.Arn}`,
        ),
      );
      expect(rules).toHaveLength(1);
      expect(props(rules[0]!)).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
      const targets = props(rules[0]!).Targets as Record<string, unknown>[];
      for (const key of ['Input', 'InputPath', 'InputTransformer'])
        expect(targets[0]).not.toHaveProperty(key);
      expect(props(fn(dueStartId)).Environment).toMatchObject({
        Variables: { STATE_MACHINE_ARN: { Ref: stateMachineId } },
      });
      expectTableReadWrite(dueStartId);
      expect(stateGrants(dueStartId)).toEqual(startExecutionOnly());
    });

    it('invokes the scheduler, with the scheduled event itself, at minute 0 of every hour', () => {
      const rules = Object.entries(resourcesOf(template, 'AWS::Events::Rule')).filter(([, r]) =>
        ((props(r).Targets ?? []) as { Arn: unknown }[]).some(
          (t) => flatten(t.Arn) === `\${${schedulerId}.Arn}`,
        ),
      );
      expect(rules).toHaveLength(1);
      const [ruleId, rule] = rules[0] as [string, Resource];
      expect(props(rule)).toMatchObject({ ScheduleExpression: 'cron(0 * * * ? *)', State: 'ENABLED' });
      expect(props(rule).EventPattern).toBeUndefined();
      const targets = props(rule).Targets as Record<string, unknown>[];
      expect(targets).toHaveLength(1);
      expect(targets[0]).toMatchObject({ Arn: getAttArn(schedulerId) });
      // The scheduler goes by the event's `time`: the target passes the event unchanged.
      for (const key of ['Input', 'InputPath', 'InputTransformer'])
        expect(targets[0]).not.toHaveProperty(key);

      // Only that rule may invoke the scheduler.
      const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission'))
        .map(props)
        .filter((p) => flatten(p.FunctionName) === `\${${schedulerId}.Arn}`);
      expect(permissions).toEqual([
        {
          Action: 'lambda:InvokeFunction',
          FunctionName: getAttArn(schedulerId),
          Principal: 'events.amazonaws.com',
          SourceArn: getAttArn(ruleId),
        },
      ]);
    });

    it('lets the scheduler start executions of the state machine and describe them, with the table and nothing else', () => {
      expect(props(fn(schedulerId)).Environment).toMatchObject({
        Variables: { STATE_MACHINE_ARN: { Ref: stateMachineId } },
      });
      expectTableReadWrite(schedulerId);
      // DescribeExecution on this machine's executions only: the tick re-drives closed ones (defect 6).
      expect(stateGrants(schedulerId)).toEqual([
        ...startExecutionOnly(),
        ['Allow', ['states:DescribeExecution'], [expect.stringMatching(/:execution:.*:\*$/)]],
      ]);
      expect(beyondTable(schedulerId).filter((s) => !isOnStates(s))).toEqual([]);
    });
  });

  describe('trigger endpoints', () => {
    it(
      prod
        ? 'give the trigger functions neither the state machine ARN nor any Step Functions permission'
        : 'let the trigger functions start executions of the state machine, and only that',
      () => {
        expect([...TRIGGER_HANDLERS].sort()).toEqual([
          'triggers/process-group',
          'triggers/process-merchant',
          'triggers/retry-merchant',
        ]);
        for (const handler of NON_PROD_HANDLERS) {
          const id = functionIdOf(template, stage, handler);
          const variables = (props(fn(id)).Environment as { Variables: Record<string, unknown> }).Variables;
          // Issue 22, item 5: the test clock's settle-now is bound per handler, not as a trigger.
          if (prod || !TRIGGER_HANDLERS.includes(handler)) {
            expect(Object.keys(variables)).not.toContain('STATE_MACHINE_ARN');
            expect(stateGrants(id)).toEqual([]);
          } else {
            expect(variables.STATE_MACHINE_ARN).toEqual({ Ref: stateMachineId });
            expect(stateGrants(id)).toEqual(startExecutionOnly());
          }
        }
      },
    );

    it(`leaves Step Functions permissions to the scheduler, the due start${prod ? '' : ' and the triggers'} alone`, () => {
      const holders = Object.entries(resourcesOf(template, 'AWS::IAM::Policy'))
        .filter(([, p]) =>
          (props(p).PolicyDocument as { Statement: Statement[] }).Statement.some(
            (st) =>
              isOnStates(st) &&
              resourcesOfStatement(st).some((r) => r === '*' || r.includes(`\${${stateMachineId}}`)),
          ),
        )
        .flatMap(([, p]) => (props(p).Roles as { Ref: string }[]).map((r) => r.Ref));
      const expected = [SCHEDULER_HANDLER, DUE_START_HANDLER, ...(prod ? [] : TRIGGER_HANDLERS)].map((h) =>
        roleIdOf(fn(functionIdOf(template, stage, h))),
      );
      expect(holders.sort()).toEqual(expected.sort());
    });
  });

  describe('alarms and outputs', () => {
    it('alarms the topic on the first failed or timed-out execution and on the first scheduler error', () => {
      const topicRef = template.findOutputs('AlarmTopicArn').AlarmTopicArn?.Value as { Ref: string };
      expect(resourcesOf(template, 'AWS::SNS::Topic')[topicRef.Ref]).toBeDefined();
      const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(props);
      const expected = [
        {
          Namespace: 'AWS/States',
          MetricName: 'ExecutionsFailed',
          Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: stateMachineId } }],
        },
        {
          Namespace: 'AWS/States',
          MetricName: 'ExecutionsTimedOut',
          Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: stateMachineId } }],
        },
        {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: schedulerId } }],
        },
      ];
      for (const metric of expected) {
        const matching = alarms.filter(
          (a) =>
            a.Namespace === metric.Namespace &&
            a.MetricName === metric.MetricName &&
            JSON.stringify(a.Dimensions) === JSON.stringify(metric.Dimensions),
        );
        expect(matching).toHaveLength(1);
        expect(matching[0]).toMatchObject({
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          EvaluationPeriods: 1,
          AlarmActions: expect.arrayContaining([topicRef]),
        });
      }
    });

    it('alarms on GroupsProcessingTooLong > 0 exactly as the tick emits it (namespace, name, dimension)', () => {
      const topicRef = template.findOutputs('AlarmTopicArn').AlarmTopicArn?.Value as { Ref: string };
      // What the tick writes (an embedded-metric log line), read back as CloudWatch would.
      const emitted = emittedMetric(stuckGroupsMetricLine(2, stage, new Date()));
      expect(emitted).toMatchObject({
        namespace: STUCK_GROUPS_METRIC.namespace,
        name: STUCK_GROUPS_METRIC.name,
        value: 2,
      });
      const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
        .map(props)
        .filter((a) => a.MetricName === emitted.name);
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        Namespace: emitted.namespace,
        Dimensions: [emitted.dimension],
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: expect.arrayContaining([topicRef]),
      });
    });

    it('outputs the state machine ARN and the alarm topic ARN', () => {
      const outputs = template.findOutputs('*');
      expect(outputs.StateMachineArn?.Value).toEqual({ Ref: stateMachineId });
      const topicRef = outputs.AlarmTopicArn?.Value as { Ref: string } | undefined;
      expect(resourcesOf(template, 'AWS::SNS::Topic')[topicRef?.Ref ?? '']).toBeDefined();
    });
  });
});
