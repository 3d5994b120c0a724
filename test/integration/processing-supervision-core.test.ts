/**
 * Issue 13, defect 6 (a group can stay `processing` forever, silently), against DynamoDB Local:
 * the hourly tick re-drives a group whose execution closed without completing it, leaves a running
 * one alone, and never uses an execution name twice; BeginGroup's read of a claim that is not
 * visible yet fails the task, which the state machine retries, and then proceeds.
 *
 * Step Functions is a fake here (the names started, and the status of each ARN); the state
 * machine itself runs in aws-local-stepfunctions on the deployed ASL file.
 */
import { readFileSync } from 'node:fs';
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
import { createTestTable, type TestTable } from '#support/ddb';

const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:test';
const arnOf = (name: string) => `${MACHINE.replace(':stateMachine:', ':execution:')}:${name}`;

/** The fake Step Functions: every name started, and each execution's status. */
const started: string[] = [];
const statuses = new Map<string, string>();
jest.mock('#shared/sfn', () => ({
  startExecution: jest.fn(async (name: string) => {
    started.push(name);
    statuses.set(arnOf(name), 'RUNNING');
    return arnOf(name);
  }),
  executionStatus: jest.fn(async (arn: string) => statuses.get(arn) ?? 'MISSING'),
}));

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
/** Loaded after the fake Step Functions (jest.mock is not hoisted above imports here). */
let startProcessing: typeof import('#core/processing').startProcessing;
let startExecution: jest.Mock;
const MERCHANT = '32350000001';
const SLOT = { scheduleDate: '2031-08-01', scheduleHour: 6 };
const TICK = { time: '2031-08-01T06:00:00Z' };

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.STATE_MACHINE_ARN = MACHINE;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  tick = (await import('#lambdas/scheduled/supervise-processing')).handler as unknown as typeof tick;
  begin = (await import('#lambdas/process-group/begin-group')).handler as unknown as typeof begin;
  ({ startProcessing } = await import('#core/processing'));
  startExecution = (await import('#shared/sfn')).startExecution as unknown as jest.Mock;
});
afterAll(() => table.drop());

/** A group claimed `minutesAgo` minutes ago by attempt 1; its execution started (ARN recorded) or not. */
async function aClaimedGroup(minutesAgo: number, executionStarted: boolean): Promise<Group> {
  const claimedAt = new Date(Date.now() - minutesAgo * 60_000);
  const group = newGroup({ servicePayId: MERCHANT, ...SLOT, locationId: 1 }, MERCHANT, newId(), claimedAt);
  await groups.createGroup(group, []);
  const claim = await claims.claim(group, claimedAt);
  if (!claim.claimed) throw new Error('not claimed');
  if (executionStarted) {
    started.push(claim.executionName);
    statuses.set(arnOf(claim.executionName), 'RUNNING');
    await claims.recordExecution(group.paymentGroupId, claim.executionName, arnOf(claim.executionName));
  }
  return group;
}

const resumedOf = async (group: Group) =>
  (await tick(TICK, context)).resumed.filter((o) => o.paymentGroupId === group.paymentGroupId);

describe('issue 13, defect 6: a group can stay processing forever, silently', () => {
  test.each(['FAILED', 'ABORTED', 'TIMED_OUT', 'SUCCEEDED'])(
    'an execution that closed %s before its group was done is re-driven under the next name, at once',
    async (status) => {
      const group = await aClaimedGroup(1, true);
      const id = group.paymentGroupId;
      statuses.set(arnOf(`pg-${id}-1`), status);
      expect(await resumedOf(group)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
      expect(await claims.read(id)).toMatchObject({
        status: 'processing',
        processingAttempt: 2,
        executionName: `pg-${id}-2`,
        executionArn: arnOf(`pg-${id}-2`),
      });
      // The new attempt runs: the next tick leaves it alone; when it fails too, attempt 3.
      expect(await resumedOf(group)).toEqual([]);
      statuses.set(arnOf(`pg-${id}-2`), 'FAILED');
      expect(await resumedOf(group)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-3`) }]);
    },
  );

  test('a running execution is left alone, however old its claim', async () => {
    const group = await aClaimedGroup(90, true);
    const before = started.length;
    expect(await resumedOf(group)).toEqual([]);
    expect(started.length).toBe(before);
    expect(await claims.read(group.paymentGroupId)).toMatchObject({ processingAttempt: 1 });
  });

  test('a claim whose execution never started: left while young, then started under its own name', async () => {
    const young = await aClaimedGroup(1, false);
    expect(await resumedOf(young)).toEqual([]);
    const old = await aClaimedGroup(6, false);
    const id = old.paymentGroupId;
    // The starter died between the claim and StartExecution: the claimed attempt's name is started.
    expect(await resumedOf(old)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-1`) }]);
    expect(await claims.read(id)).toMatchObject({ processingAttempt: 1, executionArn: arnOf(`pg-${id}-1`) });
  });

  test('an execution recorded but not found (an ambiguous start) is re-driven only after a few minutes', async () => {
    const young = await aClaimedGroup(1, true);
    statuses.delete(arnOf(`pg-${young.paymentGroupId}-1`));
    expect(await resumedOf(young)).toEqual([]);
    const old = await aClaimedGroup(6, true);
    const id = old.paymentGroupId;
    statuses.delete(arnOf(`pg-${id}-1`));
    expect(await resumedOf(old)).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
  });

  test('concurrent ticks re-drive a closed execution once; no execution name is ever used twice', async () => {
    const group = await aClaimedGroup(1, true);
    const id = group.paymentGroupId;
    statuses.set(arnOf(`pg-${id}-1`), 'FAILED');
    const results = await Promise.all([resumedOf(group), resumedOf(group), resumedOf(group)]);
    expect(results.flat()).toEqual([{ paymentGroupId: id, executionArn: arnOf(`pg-${id}-2`) }]);
    expect(new Set(started).size).toBe(started.length);
  });

  test("BeginGroup: a claim not visible yet fails the task; the state machine's retry then proceeds", async () => {
    const group = await aClaimedGroup(0, true);
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
    started.push(claim.executionName);
    statuses.set(arnOf(claim.executionName), 'RUNNING');
    await claims.recordExecution(group.paymentGroupId, claim.executionName, arnOf(claim.executionName));
    return group;
  }

  test('a group triggered ahead of its slot whose execution was stopped is re-driven by the tick of the current hour', async () => {
    const group = await triggeredAhead(1);
    const id = group.paymentGroupId;
    statuses.set(arnOf(`pg-${id}-1`), 'ABORTED');
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
    // Its execution is RUNNING (the fake's): supervision leaves it, the metric counts it.
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
    statuses.set(arnOf(`pg-${id}-1`), 'ABORTED');
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
    startExecution.mockRejectedValueOnce(new Error('StartExecution unavailable'));
    expect(await startProcessing(group, new Date())).toEqual({
      paymentGroupId: id,
      error: 'processing could not be started; try again',
    });
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
