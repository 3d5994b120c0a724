/**
 * Issue 13, defect 7 (one failed batch fails the rest of the group, and FailRemaining needs the
 * processor), and the fan-out over key ranges (issue 10, item 1): the deployed state machine
 * (aws-local-stepfunctions on the ASL file, retry waits shortened) with the real BeginGroup,
 * AuthorizeBatch, FailBatch and CompleteGroup tasks, against DynamoDB Local and the sandbox
 * processor with faults.
 */
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import { v7 } from 'uuid';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { PROCESS_GROUP_DEFINITION } from '#contract/processing';
import { newGroup, newPayment, type Group, type Payment } from '#domain/groups';
import type { ProcessingState } from '#domain/processing';
import { useProcessor } from '#processor/index';
import { ProcessorUnavailableError, type PaymentProcessor } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId, transactionIdOf } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoGroupStore } from '#store/groups';
import { DynamoPaymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { DynamoTransactionStore } from '#store/transactions';
import { skippingSleeps } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { FaultyProcessor } from '#support/processor-double';

type Task = (input: unknown, context: Context) => Promise<unknown>;
const context = {
  functionName: 'test',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

let table: TestTable;
let groups: DynamoGroupStore;
let payStore: DynamoPaymentStore;
let claims: DynamoClaimStore;
let sandbox: SandboxProcessor;
let faulty: FaultyProcessor;
let tasks: Record<string, Task>;
let sweep: typeof import('#core/sweeper').sweep;
const MERCHANT = '32350000001';
const BATCH = 4;

/** While true, the processor answers nothing (sales and reversals time out). */
let down = false;
const unavailable = () => Promise.reject(new ProcessorUnavailableError('processor outage (injected)'));

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.PROCESS_BATCH_SIZE = String(BATCH);
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  payStore = new DynamoPaymentStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 });
  faulty = new FaultyProcessor(sandbox);
  const outage: PaymentProcessor = {
    voidsBankDebits: faulty.voidsBankDebits,
    voidIsRefund: faulty.voidIsRefund,
    tokenize: (r) => faulty.tokenize(r),
    settlementTime: (t) => faulty.settlementTime(t),
    listActivity: (since, until) => faulty.listActivity(since, until),
    accountUpdates: (since, until) => faulty.accountUpdates(since, until),
    void: (r) => (down ? unavailable() : faulty.void(r)),
    refund: (r) => (down ? unavailable() : faulty.refund(r)),
    sale: (r) => (down ? unavailable() : faulty.sale(r)),
    reverseUnanswered: (r) => (down ? unavailable() : faulty.reverseUnanswered(r)),
  };
  useProcessor(outage);
  tasks = {};
  for (const [state, module] of [
    ['BeginGroup', 'begin-group'],
    ['AuthorizeFirstBatch', 'authorize-first-batch'],
    ['AuthorizeBatch', 'authorize-batch'],
    ['FailBatch', 'fail-batch'],
    ['CompleteGroup', 'complete-group'],
  ] as const)
    tasks[state] = ((await import(`#lambdas/process-group/${module}`)) as { handler: Task }).handler;
  sweep = (await import('#core/sweeper')).sweep;
});
afterEach(() => {
  down = false;
  faulty.clear();
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/**
 * A stored, claimed group of `count` payments on approving cards (each its own, up to 20 cards;
 * amounts differ, so the duplicate check declines none), with the given paymentIds if any.
 */
async function aClaimedGroup(
  count: number,
  ids: readonly string[] = [],
  deleted: readonly number[] = [],
): Promise<{ group: Group; payments: Payment[]; name: string }> {
  const payors = new DynamoPayorStore(table.db, table.tableName);
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: '2031-09-01', scheduleHour: 9, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const payments: Payment[] = [];
  const profiles: string[] = [];
  for (let i = 0; i < Math.min(count, 20); i++) {
    const { payor, method } = makePayor(MERCHANT, {}, 'ok');
    await payors.create(payor, method);
    profiles.push(`${payor.payorId}/${method.savedPaymentMethodId}`);
  }
  for (let i = 0; i < count; i++) {
    const profileId = profiles[i % profiles.length]!;
    payments.push(newPayment({ profileId, amount: 10 + i }, group, ids[i] ?? newId(), now));
  }
  group.paymentCount = payments.length;
  group.totalCents = payments.reduce((s, p) => s + p.amountCents, 0);
  await groups.createGroup(group, payments);
  for (const i of deleted) {
    expect(await payStore.softDeletePayment(payments[i]!, now)).toBe('ok');
    payments[i] = { ...payments[i]!, deleted: true };
  }
  const claim = await claims.claim(group, now);
  if (!claim.claimed) throw new Error('not claimed');
  return { group, payments, name: claim.executionName };
}

/**
 * Runs the deployed definition for a group; `before` sees each task invocation (its state and
 * input) first, and what it returns is called when the invocation ends.
 */
async function runExecution(
  group: Group,
  name: string,
  before: (state: string, input: unknown) => void | (() => void) = () => undefined,
): Promise<unknown> {
  const text = readFileSync(PROCESS_GROUP_DEFINITION, 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_m, sub: string) => `arn:aws:lambda:us-east-1:000000000000:function:${sub}`,
  );
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {
    // Receipts are another test's subject (receipts-fan-out.test.ts): nothing to queue here.
    EmitReceipts: async (input) => ({ ...(input as object), receiptsDone: true }),
    ReceiptsQueued: async (input) => input,
  };
  for (const [state, task] of Object.entries(tasks))
    handlers[state] = async (input) => {
      const after = before(state, input);
      try {
        return await task(input, context);
      } finally {
        after?.();
      }
    };
  const machine = new StateMachine(JSON.parse(text) as StateMachineDefinition, {
    validationOptions: { checkArn: false },
  });
  const run = machine.run(
    { paymentGroupId: group.paymentGroupId, merchantId: MERCHANT, executionName: name },
    {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides: { WaitForSettlement: 0 },
        retryIntervalOverrides: {
          BeginGroup: 0,
          AuthorizeFirstBatch: 0,
          AuthorizeBatch: 0,
          FailBatch: 0,
          CompleteGroup: 0,
        },
      },
    },
  );
  return run.result;
}

/** Runs `fn` with these function settings, then the file's own again. */
async function withSettings<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  reloadConfigForTests();
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    reloadConfigForTests();
  }
}

const stored = (p: Payment) => payStore.getPayment(p.paymentGroupId, p.paymentId);
const sale = async (p: Payment) =>
  (await new DynamoTransactionStore(table.db, table.tableName).find(transactionIdOf(p.paymentId)))
    ?.transaction;
const charges = async (p: Payment) =>
  ((await sandbox.ledger('SALE', `payment:${p.paymentId}`))?.calls as number | undefined) ?? 0;

describe('issue 13, defect 7: one failed batch fails the rest of the group, and FailRemaining needs the processor', () => {
  test('the state machine waits a long, bounded while for the processor before giving up on a batch', () => {
    interface Retrier {
      ErrorEquals: string[];
      IntervalSeconds: number;
      BackoffRate: number;
      MaxAttempts: number;
      MaxDelaySeconds: number;
    }
    const asl = JSON.parse(readFileSync(PROCESS_GROUP_DEFINITION, 'utf8')) as {
      States: Record<string, { ItemProcessor?: { States: Record<string, { Retry?: Retrier[] }> } }>;
    };
    // The batch loop runs inside the Map over the group's key ranges.
    const retrier = asl.States.AuthorizeRanges!.ItemProcessor!.States.AuthorizeBatch!.Retry!.find((r) =>
      r.ErrorEquals.includes('ProcessorUnavailable'),
    )!;
    const waits = Array.from({ length: retrier.MaxAttempts }, (_, k) =>
      Math.min(retrier.IntervalSeconds * retrier.BackoffRate ** k, retrier.MaxDelaySeconds),
    );
    const total = waits.reduce((a, b) => a + b, 0);
    // FULL jitter: each wait is uniform up to its bound, so about half of this on average.
    expect(total).toBeGreaterThanOrEqual(20 * 60);
    expect(total).toBeLessThanOrEqual(30 * 60);
  });

  test('a processor outage of a few minutes does not fail the execution or mark payments Failed that a later retry would charge', async () => {
    const { group, payments, name } = await aClaimedGroup(6);
    // Down for the first five attempts at the first batch (up to 7.75 minutes of backoff in the cloud).
    // One range, so the attempts come one after another (with two, a call could start while the
    // flag is up and run after it is down).
    let attempts = 0;
    // Each charge tries the processor three times before its batch fails (core/charge.ts: 0.4 s,
    // then 1.6 s apart), paced as it goes. Those pauses are taken on a clock that moves by what is
    // slept, at once: the service's time is real time plus them, as if it had waited (the test
    // took 12 s of real waiting).
    const { pauses } = await skippingSleeps(async () => {
      await withSettings({ PROCESS_FAN_OUT: '1' }, () =>
        runExecution(group, name, (state) => {
          if (state === 'AuthorizeBatch' || state === 'AuthorizeFirstBatch') down = ++attempts <= 5;
        }),
      );
    });
    expect(attempts).toBe(5 + 2); // five failed attempts, then the two batches
    // The charges of each failed attempt were tried again 0.4 s and then 1.6 s later.
    expect(pauses.filter((ms) => ms === 400).length).toBeGreaterThanOrEqual(5);
    expect(pauses.filter((ms) => ms === 1_600).length).toBeGreaterThanOrEqual(5);
    const done = await claims.read(group.paymentGroupId);
    expect(done).toMatchObject({ status: 'processed', processingSummary: { approved: 6, failed: 0 } });
    for (const p of payments) {
      expect((await stored(p))!.authResponse).toMatchObject({ status: 'Approved', responseCode: '00' });
      expect(await sale(p)).toMatchObject({ status: 'Approved' });
      expect(await charges(p)).toBe(1);
    }
    expect(faulty.calls.filter((c) => c.kind === 'REVERSE')).toEqual([]);
  }, 60_000);

  test('a batch that fails for good fails only its own payments, without the processor, and the next batches still run', async () => {
    const { group, payments, name } = await aClaimedGroup(10); // batches of 4: [0-3] [4-7] [8-9]
    const victim = payments[5]!;
    // Every sale of the victim is charged and then crashes before it is recorded; and the
    // processor does not answer reversals while the group runs.
    faulty.failAlways(`payment:${victim.paymentId}`, 'crash-after');
    faulty.reverseFault = 'unavailable-before';
    await runExecution(group, name);

    const done = await claims.read(group.paymentGroupId);
    expect(done).toMatchObject({
      status: 'processed',
      processingSummary: { approved: 9, failed: 1, declined: 0 },
    });
    for (const p of payments.filter((x) => x !== victim))
      expect((await stored(p))!.authResponse).toMatchObject({ status: 'Approved' });
    expect((await stored(victim))!.authResponse).toMatchObject({ status: 'Failed', responseCode: '96' });
    // Recorded as given up and marked for reversal; the processor was not asked to reverse yet.
    expect(await sale(victim)).toMatchObject({ status: 'Declined', responseCode: '96', reversalDue: true });
    expect(faulty.calls.filter((c) => c.kind === 'REVERSE')).toEqual([]);
    expect(await charges(victim)).toBeGreaterThan(0);

    // The sweeper reverses it once the processor answers.
    faulty.clear();
    const report = await sweep(new Date(Date.now() + 60_000), { olderThanSeconds: 15 });
    expect(report.reversed).toEqual(
      expect.arrayContaining([expect.objectContaining({ transactionId: transactionIdOf(victim.paymentId) })]),
    );
    expect(await sandbox.ledger('SALE', `payment:${victim.paymentId}`)).toMatchObject({ reversed: true });
    expect(await sale(victim)).not.toHaveProperty('reversalDue');
  }, 60_000);
});

describe('issue 10, item 1: a group is processed over key ranges at once', () => {
  /** Runs the group with these settings; the most AuthorizeBatch tasks in flight at once and CompleteGroup's input. */
  async function runRanges(group: Group, name: string, env: Record<string, string>) {
    let inFlight = 0;
    let most = 0;
    let batches = 0;
    let completeInput: ProcessingState | undefined;
    await withSettings(env, () =>
      runExecution(group, name, (state, input) => {
        if (state === 'CompleteGroup') completeInput = input as ProcessingState;
        if (state !== 'AuthorizeBatch' && state !== 'AuthorizeFirstBatch') return undefined;
        batches++;
        most = Math.max(most, ++inFlight);
        return () => void inFlight--;
      }),
    );
    return { most, batches, ranges: completeInput?.ranges ?? [], fanOut: completeInput?.fanOut };
  }

  const salesOf = (p: Payment) =>
    faulty.calls.filter((c) => c.kind === 'SALE' && c.key === `payment:${p.paymentId}`).length;

  test('300 payments with unevenly spread ids (a burst, outliers, both ends of the id space) are each charged exactly once, and the ranges add up', async () => {
    // paymentIds are UUIDv7 made by the service: a bulk create writes a thousand within a few
    // milliseconds (one dense slice of the id space), later adds land far from it. Ranges are cut
    // at real keys, so they stay balanced, and cover the lowest and highest ids possible too.
    const year = 365 * 24 * 3600 * 1000;
    const ids = [
      '00000000-0000-7000-8000-000000000000',
      'ffffffff-ffff-7fff-bfff-ffffffffffff',
      ...Array.from({ length: 250 }, () => newId()),
      ...Array.from({ length: 48 }, (_, i) =>
        v7({ msecs: Date.now() - 5 * year + i * 30 * 24 * 3600 * 1000 }),
      ),
    ];
    const deleted = [3, 100, 251, 299];
    const { group, payments, name } = await aClaimedGroup(ids.length, ids, deleted);
    // Batches of 10 (production's 250 at a quarter of the payments: 1,200 timed out on a busy machine).
    const env = { PROCESS_BATCH_SIZE: '10', PROCESS_FAN_OUT: '6' };
    const { most, ranges, fanOut } = await runRanges(group, name, env);

    // Six ranges, run at most six at once (and more than one at once).
    expect(fanOut).toBe(6);
    expect(ranges).toHaveLength(6);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(6);
    // Each range about a sixth of the group, whatever the ids' spread.
    const sizes = ranges.map((r) => r.totals.approved + r.totals.skipped);
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(45);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(300);

    const live = payments.filter((p) => !p.deleted);
    const cents = live.reduce((sum, p) => sum + p.amountCents, 0);
    expect((await claims.read(group.paymentGroupId))?.processingSummary).toMatchObject({
      approved: 296,
      skipped: 4,
      declined: 0,
      failed: 0,
      approvedCents: cents,
    });
    for (const p of payments) {
      expect([p.paymentId, salesOf(p)]).toEqual([p.paymentId, p.deleted ? 0 : 1]);
      const auth = (await stored(p))!.authResponse;
      expect([p.paymentId, auth?.status ?? null]).toEqual([p.paymentId, p.deleted ? null : 'Approved']);
    }
  }, 180_000);

  test('defect: deleted payments crowded the live ones into the last key range (ranges were sized by live payments and cut by every payment); each range now holds its share of the live ones', async () => {
    // 40 payments, the first 30 deleted: 10 live ones, batches of 4, three ranges of up to 4.
    const { group, payments, name } = await aClaimedGroup(
      40,
      [],
      Array.from({ length: 30 }, (_, i) => i),
    );
    const { ranges } = await runRanges(group, name, { PROCESS_FAN_OUT: '4' });

    // Cut at every 4th payment, deleted included, the first two ranges held deleted payments only
    // and the last all ten live ones, charged one batch after another: [0, 0, 10].
    expect(ranges.map((r) => r.totals.approved)).toEqual([4, 4, 2]);
    expect(ranges.reduce((n, r) => n + r.totals.skipped, 0)).toBe(30);
    for (const p of payments) expect([p.paymentId, salesOf(p)]).toEqual([p.paymentId, p.deleted ? 0 : 1]);
  }, 60_000);

  test("defect: deleted payments took a batch's places like payments to charge, so a group with many deleted took a batch (a task and its history events) for every PROCESS_BATCH_SIZE of them; a batch now reads past deleted ones, up to 8 for each of its places", async () => {
    // 10 live payments among 120 deleted ones (every 13th live), batches of 4, one range.
    const deleted = Array.from({ length: 130 }, (_, i) => i).filter((i) => i % 13 !== 0);
    const { group, payments, name } = await aClaimedGroup(130, [], deleted);
    const { batches, ranges } = await runRanges(group, name, {
      PROCESS_BATCH_SIZE: '4',
      PROCESS_FAN_OUT: '1',
    });

    // 33 batches of 4 (130 payments) before; now 3 batches' places for the 10 live ones, each
    // reading past at most 32 deleted ones: 130 payments read in at most 5 batches.
    expect(batches).toBeLessThanOrEqual(5);
    expect(ranges.map((r) => [r.totals.approved, r.totals.skipped])).toEqual([[10, 120]]);
    expect((await claims.read(group.paymentGroupId))?.processingSummary).toMatchObject({
      approved: 10,
      skipped: 120,
    });
    for (const p of payments) expect([p.paymentId, salesOf(p)]).toEqual([p.paymentId, p.deleted ? 0 : 1]);
  }, 60_000);

  test('a batch that fails for good in one range gives up only that batch; the other ranges are processed in full', async () => {
    // 40 payments, batches of 4, 4 ranges of 10: the victim is in the second range's second batch.
    const { group, payments, name } = await aClaimedGroup(40);
    const victim = payments[15]!;
    faulty.failAlways(`payment:${victim.paymentId}`, 'crash-after');
    faulty.reverseFault = 'unavailable-before';
    const { ranges } = await runRanges(group, name, { PROCESS_FAN_OUT: '4' });

    expect(ranges.map((r) => [r.totals.approved, r.totals.failed])).toEqual([
      [10, 0],
      [9, 1],
      [10, 0],
      [10, 0],
    ]);
    expect((await claims.read(group.paymentGroupId))?.processingSummary).toMatchObject({
      approved: 39,
      failed: 1,
      declined: 0,
    });
    for (const p of payments.filter((x) => x !== victim)) {
      expect((await stored(p))!.authResponse).toMatchObject({ status: 'Approved' });
      expect(salesOf(p)).toBe(1);
    }
    expect((await stored(victim))!.authResponse).toMatchObject({ status: 'Failed', responseCode: '96' });
  }, 60_000);
});
