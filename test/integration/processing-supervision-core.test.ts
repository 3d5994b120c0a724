/**
 * Issue 13, defect 6 (a group can stay `processing` forever, silently), against DynamoDB Local:
 * the hourly tick re-drives a group whose execution closed without completing it, leaves a running
 * one alone, and never uses an execution name twice; BeginGroup's read of a claim that is not
 * visible yet fails the task, which the state machine retries, and then proceeds.
 *
 * Step Functions is the local runtime's own (lib/local/step-functions.ts: the real ASL file on
 * aws-local-stepfunctions behind its StartExecution/DescribeExecution endpoint), reached through
 * the real SFN client. Its tasks are this file's: an execution's BeginGroup holds it RUNNING until
 * the file ends, or ends it as the test needs: SUCCEEDED without the group (nothing claimed), or
 * FAILED (an output the next state refuses); a stopped one is ABORTED. (Step Functions' TIMED_OUT
 * has no local stand-in: test/unit/supervise-closed-executions.test.ts covers it.)
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { PROCESS_GROUP_DEFINITION, processGroupTasks } from '#contract/processing';
import { newGroup, type Group } from '#domain/groups';
import type { ProcessingState } from '#domain/processing';
import { reloadConfigForTests } from '#shared/config';
import { newId } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoDueIndex } from '#store/due';
import { DynamoGroupStore } from '#store/groups';
import { createSfnServer, LocalStepFunctions } from '#lib/local/step-functions';
import { createTestTable, type TestTable } from '#support/ddb';

const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:test';
const arnOf = (name: string) => `${MACHINE.replace(':stateMachine:', ':execution:')}:${name}`;

/** How an execution's BeginGroup ends it, by execution name; `run` (the default) holds it RUNNING. */
type Fate = 'run' | 'succeed' | 'fail';
const fates = new Map<string, Fate>();
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));

async function beginAs(input: { executionName: string }): Promise<unknown> {
  const fate = fates.get(input.executionName) ?? 'run';
  if (fate === 'succeed') return { ...input, claimed: false, receiptsOnly: false };
  // The Map's items must be a list: a string fails the execution (States.Runtime, not retried).
  if (fate === 'fail') return { ...input, claimed: true, ranges: 'not a list' };
  await held;
  return { ...input, claimed: false, receiptsOnly: false };
}

let machine: LocalStepFunctions;
let server: Server;
const port = () => (server.address() as AddressInfo).port;
const listen = (at = 0) => new Promise<void>((resolve) => server.listen(at, '127.0.0.1', resolve));
const close = () => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
};
/** What a starter hands the execution (core/processing.ts): the group and the attempt's name. */
const executionInput = (group: Group, executionName: string) => ({
  paymentGroupId: group.paymentGroupId,
  merchantId: group.merchantId,
  executionName,
});
const startedNames = () => machine.list().map((e) => e.name);
/** The execution closed: it stopped (ABORTED) or ran to its end. */
async function closed(name: string, how: 'stop' | 'end' = 'end'): Promise<string> {
  const execution = machine.describe(arnOf(name));
  if (how === 'stop') await machine.stopExecution(arnOf(name));
  else await execution.done;
  return execution.status;
}

type Handler<I, O> = (input: I, context: Context) => Promise<O>;
const context = {
  functionName: 'test',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

let table: TestTable;
let groups: DynamoGroupStore;
let claims: DynamoClaimStore;
let tick: Handler<
  { time: string },
  { resumed: { paymentGroupId: string; executionArn?: string }[]; stuck: number; started: unknown[] }
>;
let begin: Handler<unknown, ProcessingState>;
let startProcessing: typeof import('#core/processing').startProcessing;
const MERCHANT = '32350000001';
const SLOT = { scheduleDate: '2031-08-01', scheduleHour: 6 };
const TICK = { time: '2031-08-01T06:00:00Z' };

beforeAll(async () => {
  table = await createTestTable();
  const tasks: Record<string, (input: unknown) => Promise<unknown>> = {};
  const substitutions: Record<string, string> = { SettlementClock: 'test-clock' };
  for (const task of processGroupTasks) {
    tasks[task.state] = async (input) => input;
    substitutions[task.substitution] = `arn:aws:lambda:us-east-1:000000000000:function:${task.state}`;
  }
  tasks.BeginGroup = (input) => beginAs(input as { executionName: string });
  machine = new LocalStepFunctions(PROCESS_GROUP_DEFINITION, MACHINE, substitutions, tasks);
  server = createSfnServer(machine);
  await listen();
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    STATE_MACHINE_ARN: MACHINE,
    AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${port()}`,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  tick = (await import('#lambdas/scheduled/supervise-processing')).handler as unknown as typeof tick;
  begin = (await import('#lambdas/process-group/begin-group')).handler as unknown as typeof begin;
  ({ startProcessing } = await import('#core/processing'));
});
afterAll(async () => {
  const stopped = machine.stop();
  release();
  await stopped;
  await close();
  await table.drop();
});

/**
 * A group claimed `minutesAgo` minutes ago by attempt 1: its execution started with `fate` (its
 * ARN recorded), only recorded (`recorded`: a start that left no execution), or neither.
 */
async function aClaimedGroup(minutesAgo: number, execution: Fate | 'recorded' | 'none'): Promise<Group> {
  const claimedAt = new Date(Date.now() - minutesAgo * 60_000);
  const group = newGroup({ servicePayId: MERCHANT, ...SLOT, locationId: 1 }, MERCHANT, newId(), claimedAt);
  await groups.createGroup(group, []);
  const claim = await claims.claim(group, claimedAt);
  if (!claim.claimed) throw new Error('not claimed');
  const name = claim.executionName;
  if (execution !== 'none' && execution !== 'recorded') {
    fates.set(name, execution);
    machine.start(name, JSON.stringify(executionInput(group, name)));
  }
  if (execution !== 'none') await claims.recordExecution(group.paymentGroupId, name, arnOf(name));
  return group;
}

const resumedOf = async (group: Group) =>
  (await tick(TICK, context)).resumed.filter((o) => o.paymentGroupId === group.paymentGroupId);

describe('issue 13, defect 6: a group can stay processing forever, silently', () => {
  test.each([
    ['FAILED', 'fail', 'end'],
    ['ABORTED', 'run', 'stop'],
    ['SUCCEEDED', 'succeed', 'end'],
  ] as const)(
    'an execution that closed %s before its group was done is re-driven under the next name, at once',
    async (status, fate, how) => {
      const group = await aClaimedGroup(1, fate);
      const id = group.paymentGroupId;
      expect(await closed(`pg-${id}-1`, how)).toBe(status);
      expect(await resumedOf(group)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
      expect(await claims.read(id)).toMatchObject({
        status: 'processing',
        processingAttempt: 2,
        executionName: `pg-${id}-2`,
        executionArn: arnOf(`pg-${id}-2`),
      });
      expect(machine.describe(arnOf(`pg-${id}-2`)).status).toBe('RUNNING');
      // The new attempt runs: the next tick leaves it alone; when it closes too, attempt 3.
      expect(await resumedOf(group)).toEqual([]);
      expect(await closed(`pg-${id}-2`, 'stop')).toBe('ABORTED');
      expect(await resumedOf(group)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-3`) }]);
    },
  );

  test('a running execution is left alone, however old its claim', async () => {
    const group = await aClaimedGroup(90, 'run');
    const before = startedNames().length;
    expect(await resumedOf(group)).toEqual([]);
    expect(startedNames()).toHaveLength(before);
    expect(await claims.read(group.paymentGroupId)).toMatchObject({ processingAttempt: 1 });
  });

  test('a claim whose execution never started: left while young, then started under its own name', async () => {
    const young = await aClaimedGroup(1, 'none');
    expect(await resumedOf(young)).toEqual([]);
    expect(startedNames()).not.toContain(`pg-${young.paymentGroupId}-1`);
    const old = await aClaimedGroup(6, 'none');
    const id = old.paymentGroupId;
    // The starter died between the claim and StartExecution: the claimed attempt's name is started.
    expect(await resumedOf(old)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-1`) }]);
    expect(await claims.read(id)).toMatchObject({ processingAttempt: 1, executionArn: arnOf(`pg-${id}-1`) });
    expect(machine.describe(arnOf(`pg-${id}-1`)).status).toBe('RUNNING');
  });

  test('an execution recorded but not found (an ambiguous start) is re-driven only after a few minutes', async () => {
    const young = await aClaimedGroup(1, 'recorded');
    expect(await resumedOf(young)).toEqual([]);
    const old = await aClaimedGroup(6, 'recorded');
    const id = old.paymentGroupId;
    expect(await resumedOf(old)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
    expect(startedNames().filter((n) => n.startsWith(`pg-${id}-`))).toEqual([`pg-${id}-2`]);
  });

  test('concurrent ticks re-drive a closed execution once; no execution name is ever used twice', async () => {
    const group = await aClaimedGroup(1, 'fail');
    const id = group.paymentGroupId;
    expect(await closed(`pg-${id}-1`)).toBe('FAILED');
    const results = await Promise.all([resumedOf(group), resumedOf(group), resumedOf(group)]);
    expect(results.flat()).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
    expect(
      startedNames()
        .filter((n) => n.startsWith(`pg-${id}-`))
        .sort(),
    ).toEqual([`pg-${id}-1`, `pg-${id}-2`]);
  });

  test("BeginGroup: a claim not visible yet fails the task; the state machine's retry then proceeds", async () => {
    const group = await aClaimedGroup(0, 'recorded');
    const id = group.paymentGroupId;
    // DynamoDB Local always reads consistently: the stale first read is injected.
    const read = DynamoClaimStore.prototype.read;
    const stale = jest.spyOn(DynamoClaimStore.prototype, 'read').mockImplementationOnce(async function (
      this: DynamoClaimStore,
      groupId: string,
    ) {
      const current = await read.call(this, groupId);
      return current && { ...current, status: 'pending', due: true };
    });
    const text = readFileSync(PROCESS_GROUP_DEFINITION, 'utf8').replace(
      /\$\{(\w+)\}/g,
      (_m, name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    );
    const reached: string[] = [];
    const stub = (state: string) => async (input: ProcessingState) => {
      reached.push(state);
      return { ...input, cursor: null, receiptsDone: true };
    };
    const handlers: Record<string, (input: never) => Promise<unknown>> = {};
    for (const task of processGroupTasks) handlers[task.state] = stub(task.state);
    handlers.BeginGroup = (input: never) => begin(input, context);
    const machine = new StateMachine(JSON.parse(text) as StateMachineDefinition, {
      validationOptions: { checkArn: false },
    });
    const run = machine.run(
      { paymentGroupId: id, merchantId: MERCHANT, executionName: `pg-${id}-1` },
      {
        overrides: {
          taskResourceLocalHandlers: handlers as never,
          retryIntervalOverrides: { BeginGroup: 0 },
        },
      },
    );
    const output = (await run.result) as unknown as ProcessingState;
    expect(stale).toHaveBeenCalledTimes(2);
    expect(output).toMatchObject({ paymentGroupId: id, claimed: true });
    expect(reached).toEqual(['AuthorizeFirstBatch', 'CompleteGroup']);
    stale.mockRestore();
  });
});

describe('issue 25, defect 7: a group triggered before its slot and then interrupted stays processing until its slot, unseen', () => {
  /** Two days ahead of now: the slot of a group a tester triggers early. */
  const ahead = () => {
    const at = new Date(Date.now() + 2 * 86_400_000);
    return { scheduleDate: at.toISOString().slice(0, 10), scheduleHour: at.getUTCHours() };
  };
  /** The tick of the current hour, as EventBridge delivers it. */
  const tickNow = () => tick({ time: `${new Date().toISOString().slice(0, 13)}:00:00Z` }, context);

  /** A group of a slot two days ahead, triggered (claimed) `minutesAgo` minutes ago; its execution recorded. */
  async function triggeredAhead(minutesAgo: number): Promise<Group> {
    const claimedAt = new Date(Date.now() - minutesAgo * 60_000);
    const group = newGroup(
      { servicePayId: MERCHANT, ...ahead(), locationId: 1 },
      MERCHANT,
      newId(),
      claimedAt,
    );
    await groups.createGroup(group, []);
    const claim = await claims.claim(group, claimedAt);
    if (!claim.claimed) throw new Error('not claimed');
    machine.start(claim.executionName, JSON.stringify(executionInput(group, claim.executionName)));
    await claims.recordExecution(group.paymentGroupId, claim.executionName, arnOf(claim.executionName));
    return group;
  }

  test('a group triggered ahead of its slot whose execution was stopped is re-driven by the tick of the current hour', async () => {
    const group = await triggeredAhead(1);
    const id = group.paymentGroupId;
    expect(await closed(`pg-${id}-1`, 'stop')).toBe('ABORTED');
    const tickResult = await tickNow();
    expect(tickResult.resumed.filter((o) => o.paymentGroupId === id)).toEqual([
      { paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) },
    ]);
    expect(await claims.read(id)).toMatchObject({
      status: 'processing',
      processingAttempt: 2,
      scheduleDate: group.scheduleDate,
      scheduleHour: group.scheduleHour,
    });
    // Its slot is unchanged: the group is listed and rescheduled by its slot as before.
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: `GROUP#${id}`, sk: 'GROUP' } }),
    );
    expect(Item).toMatchObject({ scheduleDate: group.scheduleDate, scheduleHour: group.scheduleHour });
  });

  test('a group triggered ahead of its slot that has been processing longer than an execution may run counts in the stuck-groups alarm', async () => {
    const group = await triggeredAhead(7 * 60);
    const result = await tickNow();
    // Its execution is RUNNING (held by its BeginGroup): supervision leaves it, the metric counts it.
    expect(result.resumed.filter((o) => o.paymentGroupId === group.paymentGroupId)).toEqual([]);
    expect(result.stuck).toBe(1);
  });

  test('a processed group triggered ahead of its slot whose receipts were not all queued is re-driven too', async () => {
    const group = await triggeredAhead(2);
    const id = group.paymentGroupId;
    // CompleteGroup ran (receipts still due: settlesAt set), then the execution was stopped.
    await claims.complete(id, {
      approved: 1,
      partial: 0,
      declined: 0,
      failed: 0,
      skipped: 0,
      approvedCents: 100,
      settlesAt: new Date().toISOString(),
      processedAt: new Date().toISOString(),
    });
    expect(await closed(`pg-${id}-1`, 'stop')).toBe('ABORTED');
    const result = await tickNow();
    expect(result.resumed.filter((o) => o.paymentGroupId === id)).toEqual([
      { paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) },
    ]);
    expect(await claims.read(id)).toMatchObject({ status: 'processed', due: true, processingAttempt: 2 });
  });

  test('a claim released because its start failed goes back to its own slot: no tick starts it early', async () => {
    const group = newGroup(
      { servicePayId: MERCHANT, ...ahead(), locationId: 1 },
      MERCHANT,
      newId(),
      new Date(),
    );
    const id = group.paymentGroupId;
    await groups.createGroup(group, []);
    // Step Functions unreachable for the start (its endpoint closed), then back on the same port.
    const at = port();
    await close();
    const answer = await startProcessing(group, new Date());
    await listen(at);
    expect(answer).toEqual({ paymentGroupId: id, error: 'processing could not be started; try again' });
    expect(startedNames().filter((n) => n.startsWith(`pg-${id}-`))).toEqual([]);
    expect(await claims.read(id)).toMatchObject({ status: 'pending', due: true });
    const result = await tickNow();
    expect((result.started as { paymentGroupId: string }[]).filter((o) => o.paymentGroupId === id)).toEqual(
      [],
    );
    expect(
      (
        await new DynamoDueIndex(table.db, table.tableName).dueGroups(
          `${group.scheduleDate}T${String(group.scheduleHour).padStart(2, '0')}`,
        )
      ).map((g) => g.paymentGroupId),
    ).toContain(id);
    expect((await claims.read(id))?.status).toBe('pending');
  });
});
