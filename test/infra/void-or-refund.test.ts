/**
 * The background void-or-refund in the cloud (lib/cdk/void-or-refund.ts): its state machine from
 * statemachines/void-or-refund.asl.json with one function per Task, least-privilege grants (only the
 * void-or-refund API function may start its executions), and timeouts that cover each function's
 * bounded work (issue 10: API functions under API Gateway's 29 s).
 */
import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  VOID_OR_REFUND,
  VOID_OR_REFUND_DEFINITION,
  VOID_OR_REFUND_STATE_MACHINE_NAME,
  voidOrRefundTasks,
} from '#contract/processing';
import type { Stage } from '#contract/stage';
import { REVERSAL_SECONDS } from '#lib/cdk/void-or-refund';
import { PROCESSOR_TIMEOUT_MS } from '#processor/timeout';
import {
  actionsOf,
  functionIdOf,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
  type Resource,
  type Statement,
} from '#support/cdk/synth';

/** API Gateway's integration timeout (REST APIs, default and maximum without a quota raise). */
const API_GATEWAY_TIMEOUT_SECONDS = 29;

interface AslTask {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Next?: string;
}
const definition = JSON.parse(readFileSync(VOID_OR_REFUND_DEFINITION, 'utf8')) as {
  States: Record<string, AslTask>;
  TimeoutSeconds: number;
};

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s background void-or-refund', (stage: Stage) => {
  let template: Template;
  let functions: Record<string, Resource>;
  let machineId: string;
  let machine: Resource;
  let tableId: string;
  beforeAll(() => {
    template = stageTemplateOf(stage);
    functions = resourcesOf(template, 'AWS::Lambda::Function');
    const machines = Object.entries(resourcesOf(template, 'AWS::StepFunctions::StateMachine')).filter(
      ([, m]) => props(m).StateMachineName === VOID_OR_REFUND_STATE_MACHINE_NAME(stage),
    );
    expect(machines).toHaveLength(1);
    [machineId, machine] = machines[0] as [string, Resource];
    tableId = Object.keys(resourcesOf(template, 'AWS::DynamoDB::Table'))[0] as string;
  }, SYNTH_TIMEOUT_MS);

  const fnOf = (handler: string): Resource => functions[functionIdOf(template, stage, handler)] as Resource;
  const statementsOf = (handler: string): Statement[] => roleStatements(template, roleIdOf(fnOf(handler)));
  const actionsOn = (handler: string, prefix: string): string[] =>
    statementsOf(handler)
      .flatMap(actionsOf)
      .filter((a) => a.startsWith(prefix));
  const variables = (handler: string): Record<string, unknown> =>
    (props(fnOf(handler)).Environment as { Variables: Record<string, unknown> }).Variables;

  it('is a STANDARD, traced machine logging every event without data, each Task bound to its own function', () => {
    expect(props(machine)).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    const substitutions = props(machine).DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(substitutions).sort()).toEqual(voidOrRefundTasks.map((t) => t.substitution).sort());
    for (const task of voidOrRefundTasks) {
      expect(substitutions[task.substitution]).toEqual({
        'Fn::GetAtt': [functionIdOf(template, stage, task.handler), 'Arn'],
      });
      expect(definition.States[task.state]).toMatchObject({
        Type: 'Task',
        Resource: `\${${task.substitution}}`,
      });
    }
  });

  it('gives each task only the table access and processor its work needs, and no Step Functions action', () => {
    const expected: Record<string, { reads: boolean; writes: boolean; processor: boolean }> = {
      'void-or-refund/begin': { reads: true, writes: false, processor: false },
      'void-or-refund/reverse-batch': { reads: true, writes: true, processor: true },
      // The final summary is an announced change: it reads the group's eventSeq first (GetItem).
      // Write-only before issue 22, it would have been refused in the cloud.
      'void-or-refund/complete': { reads: true, writes: true, processor: false },
    };
    for (const task of voidOrRefundTasks) {
      const want = expected[task.handler]!;
      const dynamo = actionsOn(task.handler, 'dynamodb:');
      expect(dynamo.includes('dynamodb:GetItem')).toBe(want.reads);
      expect(dynamo.includes('dynamodb:UpdateItem')).toBe(want.writes);
      for (const s of statementsOf(task.handler).filter((x) =>
        actionsOf(x).some((a) => a.startsWith('dynamodb:')),
      ))
        for (const r of resourcesOfStatement(s)) expect(r.startsWith(`\${${tableId}.Arn}`)).toBe(true);
      expect('PROCESSOR' in variables(task.handler)).toBe(want.processor);
      expect(actionsOn(task.handler, 'states:')).toEqual([]);
    }
  });

  it('lets only the void-or-refund API function start and describe its executions', () => {
    const holders = Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
      .filter((p) =>
        (props(p).PolicyDocument as { Statement: Statement[] }).Statement.some((s) =>
          resourcesOfStatement(s).some((r) => r.includes(machineId) || r.includes('void-or-refund')),
        ),
      )
      .flatMap((p) => (props(p).Roles as { Ref: string }[]).map((r) => r.Ref));
    expect(holders).toEqual([roleIdOf(fnOf(VOID_OR_REFUND.apiHandler))]);
    expect(actionsOn(VOID_OR_REFUND.apiHandler, 'states:').sort()).toEqual([
      'states:DescribeExecution',
      'states:StartExecution',
    ]);
    expect(variables(VOID_OR_REFUND.apiHandler).VOID_OR_REFUND_STATE_MACHINE_ARN).toEqual({ Ref: machineId });
  });

  it("covers each task's bounded work with its timeout, under the Task's own, and the API's under 29 s", () => {
    const timeout = (handler: string): number => props(fnOf(handler)).Timeout as number;
    // A batch: ⌈batch / concurrency⌉ rounds, each at most one processor call plus table calls.
    const rounds = Math.ceil(VOID_OR_REFUND.batchSize / VOID_OR_REFUND.concurrency);
    expect(REVERSAL_SECONDS).toBeGreaterThan(PROCESSOR_TIMEOUT_MS / 1000);
    expect(timeout('void-or-refund/reverse-batch')).toBeGreaterThanOrEqual(rounds * REVERSAL_SECONDS);
    expect(timeout('void-or-refund/reverse-batch')).toBeLessThan(
      definition.States.ReverseBatch!.TimeoutSeconds!,
    );
    // Begin and Complete read or write the one group item.
    for (const handler of ['void-or-refund/begin', 'void-or-refund/complete'])
      expect(timeout(handler)).toBeGreaterThanOrEqual(5);
    const api = timeout(VOID_OR_REFUND.apiHandler);
    expect(api).toBeLessThan(API_GATEWAY_TIMEOUT_SECONDS);
    expect(api).toBeGreaterThan(10);
  });

  it('fits 100,000 payments within Step Functions quotas (history events and time)', () => {
    // Per batch: ReverseBatch (5 events) + MorePayments (2); Begin, its Choice, Complete, start/end.
    const batches = Math.ceil(100_000 / VOID_OR_REFUND.batchSize) + 1;
    expect(batches * 7 + 20).toBeLessThan(25_000);
    expect(definition.TimeoutSeconds).toBeLessThanOrEqual(6 * 3600);
  });
});
