/**
 * The AuthorizeBatch task against DynamoDB Local and the sandbox processor: every payment is
 * charged exactly once, also when a batch is re-run after a crash; a payment the processor does
 * not answer is left unanswered (its sale Pending) and fails the batch for the state machine to
 * retry later, after the batch's other payments are answered (issue 13, defect 7).
 */
import type { Context } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { newGroup, newPayment, type Group, type Payment } from '#domain/groups';
import { emptyTotals, rangesBetween, type ProcessingState } from '#domain/processing';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId, transactionIdOf } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoGroupStore } from '#store/groups';
import { DynamoPaymentRangeStore } from '#store/payment-ranges';
import { DynamoPaymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { DynamoRateWindowStore } from '#store/rate-windows';
import { skippingSleeps } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { FaultyProcessor } from '#support/processor-double';
import { sleep } from '#shared/clock';

type Handler = (state: ProcessingState, context: Context) => Promise<ProcessingState>;

let table: TestTable;
let groups: DynamoGroupStore;
let payStore: DynamoPaymentStore;
let claims: DynamoClaimStore;
let processor: FaultyProcessor;
let sandbox: SandboxProcessor;
let handler: Handler;
const MERCHANT = '32350000001';
const BATCH = 4;

const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'AuthorizeBatch',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:AuthorizeBatch',
  memoryLimitInMB: '512',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/AuthorizeBatch',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.PROCESS_BATCH_SIZE = String(BATCH);
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  payStore = new DynamoPaymentStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 });
  processor = new FaultyProcessor(sandbox);
  useProcessor(processor);
  // Imported after the environment is set: the logger reads it at load.
  const module = await import('#lambdas/process-group/authorize-batch');
  handler = module.handler as unknown as Handler;
});
afterEach(() => processor.clear());
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A stored, claimed group whose payments each charge a fresh saved method with the given sandbox profile. */
async function aGroup(
  profiles: string[],
  deleted: number[] = [],
): Promise<{ group: Group; payments: Payment[] }> {
  const payors = new DynamoPayorStore(table.db, table.tableName);
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: '2031-07-01', scheduleHour: 9, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const payments: Payment[] = [];
  for (const [i, profile] of profiles.entries()) {
    const { payor, method } = makePayor(MERCHANT, {}, profile);
    await payors.create(payor, method);
    payments.push(
      newPayment(
        { profileId: `${payor.payorId}/${method.savedPaymentMethodId}`, amount: 10 + i },
        group,
        newId(),
        now,
      ),
    );
  }
  group.paymentCount = payments.length;
  group.totalCents = payments.reduce((s, p) => s + p.amountCents, 0);
  await groups.createGroup(group, payments);
  for (const i of deleted) expect(await payStore.softDeletePayment(payments[i]!, now)).toBe('ok');
  await claims.claim(group, now);
  return { group, payments };
}

const initialState = (group: Group): ProcessingState => ({
  paymentGroupId: group.paymentGroupId,
  merchantId: MERCHANT,
  claimed: true,
  allowPartial: false,
  cursor: null,
  totals: emptyTotals(),
  batches: 0,
  receiptCursor: null,
  receiptsDone: false,
});

/** Runs batches until the cursor is exhausted, as the state machine does. */
async function runAll(state: ProcessingState): Promise<ProcessingState> {
  let current = await handler(state, context);
  for (let i = 0; current.cursor !== null; i++) {
    expect(i).toBeLessThan(20);
    current = await handler(current, context);
  }
  return current;
}

const saleCalls = async (payment: Payment) =>
  ((await sandbox.ledger('SALE', `payment:${payment.paymentId}`))?.calls as number | undefined) ?? 0;

/** Transactions recorded for these payments (a raw scan: a second sale would show up here). */
async function transactionsOf(payments: Payment[]): Promise<Record<string, unknown>[]> {
  const ids = new Set(payments.map((p) => p.paymentId));
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'entity = :t',
        ExpressionAttributeValues: { ':t': 'transaction' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(out.Items ?? []).filter((i) => ids.has(i.paymentId as string)));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

const stored = (payment: Payment) => payStore.getPayment(payment.paymentGroupId, payment.paymentId);

test('a key range stops at its last key: ranges cut at payments charge each payment once, the cut ones included (issue 10, item 1)', async () => {
  const { group, payments } = await aGroup(Array<string>(11).fill('ok'));
  const cuts = await new DynamoPaymentRangeStore(table.db, table.tableName).cutPoints(
    group.paymentGroupId,
    5,
    5,
  );
  // Every 5th payment's key, as many as there are: 11 payments make 2 cuts and 3 ranges (5, 5, 1).
  const sorted = payments.map((p) => `PAYMENT#${p.paymentId}`).sort();
  expect(cuts).toEqual([sorted[4], sorted[9]]);
  const ranges = rangesBetween(cuts, {
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    allowPartial: false,
  });
  const done = await Promise.all(ranges.map((r) => runAll({ ...initialState(group), ...r })));
  expect(done.map((d) => d.totals.approved)).toEqual([5, 5, 1]);
  expect(done.map((d) => d.batches)).toEqual([2, 2, 1]); // batches of 4: a range's last one is short
  for (const p of payments) expect([p.paymentId, await saleCalls(p)]).toEqual([p.paymentId, 1]);
  expect(await transactionsOf(payments)).toHaveLength(11);
});

test('each payment is charged once; re-running the batches charges nothing again', async () => {
  const { group, payments } = await aGroup(['ok', 'ok', '05', 'ok', 'ok', 'p5000', 'ok'], [4]);
  const deleted = payments[4]!;
  const live = payments.filter((p) => p !== deleted);

  const first = await runAll(initialState(group));
  expect(first.batches).toBeGreaterThanOrEqual(2);
  expect(first.totals).toMatchObject({ approved: 5, declined: 1, skipped: 1, failed: 0, partial: 0 });
  expect(first.totals.approvedCents).toBe(
    live.filter((_, i) => i !== 2).reduce((s, p) => s + p.amountCents, 0),
  );
  for (const p of live) {
    expect(await saleCalls(p)).toBe(1);
    expect((await stored(p))!.authResponse).toMatchObject({
      transactionId: transactionIdOf(p.paymentId),
      paymentId: p.paymentId,
    });
  }
  expect((await stored(payments[2]!))!.authResponse).toMatchObject({
    status: 'Declined',
    responseCode: '05',
    declineCategory: '1',
  });
  expect(await saleCalls(deleted)).toBe(0);
  expect((await stored(deleted))!.authResponse).toBeNull();
  expect(await transactionsOf(payments)).toHaveLength(live.length);

  // The same batches again (a retried step): nothing is charged, the totals come out the same.
  const again = await runAll(initialState(group));
  expect(again.totals).toEqual(first.totals);
  for (const p of live) expect(await saleCalls(p)).toBe(1);
  expect(processor.calls.filter((c) => c.kind === 'SALE')).toHaveLength(live.length);
  expect(await transactionsOf(payments)).toHaveLength(live.length);

  // One batch re-run on its own, from the same cursor: also nothing.
  const single = await handler({ ...initialState(group), cursor: null }, context);
  expect(single.cursor).not.toBeNull();
  for (const p of live) expect(await saleCalls(p)).toBe(1);
});

test('a crash after the processor charged makes the batch fail; the re-run completes without a second charge', async () => {
  const { group, payments } = await aGroup(['ok', 'ok', 'ok']);
  const victim = payments[1]!;
  processor.failNext(`payment:${victim.paymentId}`, 'crash-after');
  // The batch's other payments are answered; the task fails for the state machine to retry.
  await expect(handler(initialState(group), context)).rejects.toMatchObject({ name: 'BatchIncomplete' });
  // Let the batch's other charges (still running when the handler threw) finish.
  await sleep(500);
  expect(await saleCalls(victim)).toBe(1);
  expect((await stored(victim))!.authResponse).toBeNull();
  // The sale was recorded Pending before the processor was asked (issue 13, defect 1).
  expect((await transactionsOf([victim])).map((t) => t.status)).toEqual(['Pending']);

  const state = await runAll(initialState(group));
  expect(state.totals).toMatchObject({ approved: 3, failed: 0, declined: 0 });
  expect(await saleCalls(victim)).toBe(2);
  const txns = await transactionsOf([victim]);
  expect(txns).toHaveLength(1);
  const ledger = await sandbox.ledger('SALE', `payment:${victim.paymentId}`);
  expect(txns[0]!.processorTransactionId).toBe(
    (ledger!.result as { processorTransactionId: string }).processorTransactionId,
  );
  expect((await stored(victim))!.authResponse).toMatchObject({
    status: 'Approved',
    isDuplicate: false,
    transactionId: transactionIdOf(victim.paymentId),
  });
  for (const p of payments.filter((x) => x !== victim)) expect(await saleCalls(p)).toBe(1);
  expect(await transactionsOf(payments)).toHaveLength(3);
});

test('defect 7: a processor that never answers: 3 attempts with one key, then the batch fails (ProcessorUnavailable) and nothing is given up', async () => {
  const { group, payments } = await aGroup(['ok', 'ok']);
  const unlucky = payments[0]!;
  const key = `payment:${unlucky.paymentId}`;
  processor.failAlways(key, 'unavailable-before');
  // The attempts' pauses (core/charge.ts) pass at once on the clock, which moves on by them.
  const { pauses } = await skippingSleeps(async () => {
    const failure = handler(initialState(group), context);
    await expect(failure).rejects.toThrow('1 of 2 payments of batch 1 not answered');
    await expect(failure).rejects.toMatchObject({ name: 'ProcessorUnavailable' });
  });
  expect(processor.calls.filter((c) => c.key === key).map((c) => c.kind)).toEqual(['SALE', 'SALE', 'SALE']);
  // The attempts' backoff, in order (the processor's pace may pause too).
  expect(pauses.filter((ms) => ms === 400 || ms === 1_600)).toEqual([400, 1_600]);
  // Not answered, not reversed: its sale waits, Pending, for the retry (or the sweeper).
  expect((await stored(unlucky))!.authResponse).toBeNull();
  const txns = await transactionsOf([unlucky]);
  expect(txns).toHaveLength(1);
  expect(txns[0]).toMatchObject({ status: 'Pending' });
  expect(await sandbox.ledger('SALE', key)).toBeUndefined();
  // The batch's other payment was answered before the task failed.
  expect((await stored(payments[1]!))!.authResponse).toMatchObject({ status: 'Approved' });

  // The processor is back: the retried batch charges the payment, once, and completes.
  processor.clear();
  const state = await runAll(initialState(group));
  expect(state.totals).toMatchObject({ approved: 2, declined: 0, failed: 0 });
  expect(await saleCalls(unlucky)).toBe(1);
  expect(await saleCalls(payments[1]!)).toBe(1);
  expect(processor.calls.filter((c) => c.kind === 'REVERSE')).toEqual([]);
});

test('a processor that answers on the third attempt: approved, charged once, nothing reversed', async () => {
  const { group, payments } = await aGroup(['ok']);
  const payment = payments[0]!;
  const key = `payment:${payment.paymentId}`;
  // The first two answers are lost after the sandbox charged: the retries replay the first result.
  processor.failNext(key, 'unavailable-after', 'unavailable-after');
  const { value: state, pauses } = await skippingSleeps(() => runAll(initialState(group)));
  // The attempts' backoff, in order (the processor's pace may pause too).
  expect(pauses.filter((ms) => ms === 400 || ms === 1_600)).toEqual([400, 1_600]);
  expect(state.totals).toMatchObject({ approved: 1, declined: 0, failed: 0 });
  expect(processor.calls.filter((c) => c.key === key).map((c) => c.kind)).toEqual(['SALE', 'SALE', 'SALE']);
  const ledger = await sandbox.ledger('SALE', key);
  expect(ledger).toMatchObject({ calls: 3, result: { approved: true } });
  expect(ledger).not.toHaveProperty('reversed');
  const txns = await transactionsOf([payment]);
  expect(txns).toHaveLength(1);
  expect(txns[0]!.processorTransactionId).toBe(
    (ledger!.result as { processorTransactionId: string }).processorTransactionId,
  );
  expect((await stored(payment))!.authResponse).toMatchObject({ status: 'Approved', responseCode: '00' });
});

test("the processor's rate taken until the deadline: the batch is given back unfinished, its charged payments counted, and the range goes on from its cursor (issue 24)", async () => {
  const { group, payments } = await aGroup(['ok', 'ok', 'ok', 'ok']); // one batch of 4
  const { authorizeBatch } = await import('#core/batches');
  // A rate of 2 a second and a clock that a wait moves past the task's deadline: 2 charges go,
  // the other 2 are not tried.
  const clock = { now: 10_000 };
  const rate = {
    limits: { rate: 2, groupRate: 2, merchantRate: 2 },
    store: new DynamoRateWindowStore(table.db, table.tableName),
    now: () => clock.now,
    wait: async (ms: number) => {
      clock.now += Math.max(ms, 91_000);
    },
  };
  const held = await authorizeBatch(initialState(group), rate);
  expect(held).toMatchObject({ held: true, batches: 1 });
  expect(held.totals).toMatchObject({ approved: 2, failed: 0 });
  expect(held.cursor).toBe(`PAYMENT#${payments[1]!.paymentId}`);
  expect(await Promise.all(payments.map(saleCalls))).toEqual([1, 1, 0, 0]);

  // The next run (the state machine's MorePayments: held) charges the rest, each payment once, a
  // wait now moving the clock to the next second only.
  const wait = async (ms: number) => {
    clock.now += ms;
  };
  const done = await authorizeBatch(held, { ...rate, wait });
  expect(done.held).toBeUndefined();
  expect(done.cursor).toBeNull();
  expect(done.totals).toMatchObject({ approved: 4, failed: 0 });
  expect(await Promise.all(payments.map(saleCalls))).toEqual([1, 1, 1, 1]);
});

test('defect: a retry scheduled under maxRetries 2 was still charged in its round after the policy became maxRetries 0 (the merchant turned retries off): it is not retried (policy_exhausted), nothing charged', async () => {
  const { group, payments } = await aGroup(['51']);
  const payment = payments[0]!;
  await runAll({ ...initialState(group), retryPolicy: { maxRetries: 2, intervalHours: 24 } });
  const scheduled = (await stored(payment))!;
  expect(scheduled.retry).toMatchObject({ status: 'scheduled' });
  const at = scheduled.retry!.nextAttemptAt!;

  await runAll({
    ...initialState(group),
    retryPolicy: { maxRetries: 0, intervalHours: 24 },
    retry: { round: 1, bound: at.slice(0, 13), groupDeleted: false, startedAt: at },
  });

  expect((await stored(payment))!.retry).toMatchObject({ status: 'not_retried', reason: 'policy_exhausted' });
  expect(processor.calls.filter((c) => c.key === `payment:${payment.paymentId}:2`)).toEqual([]);
});
