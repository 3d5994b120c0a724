/**
 * The test clock (docs/decisions.md "Test clock") on DynamoDB Local with the sandbox processor:
 * settle-now settles the merchant's approved, unsettled sales and only those, a settled sale is
 * refunded rather than voided, and CheckSettlement's answer follows the merchant's mark.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { refundSale, voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import { settlementOf } from '#core/settlement';
import { settleNow } from '#core/test-clock';
import { requireTransaction } from '#core/transactions';
import { isSettled } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import { paymentProcessor } from '#core/processor';
import type { PaymentProcessor } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { ForbiddenError } from '#shared/errors';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { createTestTable, type TestTable } from '#support/ddb';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
const MERCHANT = '32350000001';
const OTHER = '32350000002';
/** Hourly cut-offs, the next one about 30 minutes away whenever the test runs. */
const SCHEDULE = { periodSeconds: 3600, offsetSeconds: (Math.floor(Date.now() / 1000) + 1800) % 3600 };

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.SETTLEMENT_PERIOD_SECONDS = String(SCHEDULE.periodSeconds);
  process.env.SETTLEMENT_POLL_SECONDS = '60';
  reloadConfigForTests();
  useProcessor(new SandboxProcessor(ddb(), table.tableName, SCHEDULE));
});
afterAll(async () => {
  useProcessor(undefined);
  delete process.env.SETTLEMENT_PERIOD_SECONDS;
  delete process.env.SETTLEMENT_POLL_SECONDS;
  await table.drop();
});

async function approved(merchantId: string, amountCents: number) {
  const profileId = await storedProfile(table, merchantId);
  const txn = await runSale(saleRequest(merchantId, profileId, amountCents), new Date());
  expect(txn.status).toBe('Approved');
  return txn;
}

/** A processed group as CompleteGroup leaves it, completed at `processedAt`. */
async function processedGroup(merchantId: string, processedAt: string): Promise<string> {
  const paymentGroupId = newId();
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...keys.group(paymentGroupId),
        entity: 'group',
        paymentGroupId,
        merchantId,
        status: 'processed',
        processingSummary: { processedAt },
      },
    }),
  );
  return paymentGroupId;
}

test("settles the merchant's approved, unsettled sales now, and no other merchant's nor a voided one", async () => {
  const mine = await approved(MERCHANT, 4550);
  const voided = await approved(MERCHANT, 1225);
  await voidSale(MERCHANT, voided.transactionId, new Date());
  const theirs = await approved(OTHER, 999);
  const now = new Date();
  expect(isSettled(mine, now)).toBe(false);

  const result = await settleNow(MERCHANT, now);
  expect(result).toMatchObject({ merchantId: MERCHANT, settledCount: 1 });

  const later = new Date(Date.parse(result.settledAt) + 1);
  const { transaction } = await requireTransaction(mine.transactionId, MERCHANT);
  expect(transaction.settlesAt).toBe(result.settledAt);
  expect(isSettled(transaction, later)).toBe(true);
  expect((await requireTransaction(voided.transactionId, MERCHANT)).transaction).toMatchObject({
    status: 'Voided',
    settlesAt: voided.settlesAt,
  });
  expect((await requireTransaction(theirs.transactionId, OTHER)).transaction.settlesAt).toBe(
    theirs.settlesAt,
  );

  // Settled: a void is refused, a refund goes through.
  await expect(voidSale(MERCHANT, mine.transactionId, later)).rejects.toThrow(/has settled; refund it/);
  const { refund } = await refundSale(MERCHANT, mine.transactionId, 1000, newId(), later);
  expect(refund.status).toBe('Completed');

  // Repeated: nothing left to settle.
  expect(await settleNow(MERCHANT, new Date())).toMatchObject({ settledCount: 0 });
});

test('CheckSettlement: settled by the cut-off, or by a mark after the group completed; else a minute later', async () => {
  const now = new Date();
  const settlesAt = new Date(now.getTime() + 30 * 60_000).toISOString();
  const before = await processedGroup(MERCHANT, new Date(now.getTime() - 1000).toISOString());
  await settleNow(MERCHANT, now);
  const after = await processedGroup(MERCHANT, new Date(now.getTime() + 1000).toISOString());
  const unmarked = await processedGroup(OTHER, new Date(now.getTime() - 1000).toISOString());
  const check = (paymentGroupId: string, merchantId: string, at: string = settlesAt) =>
    settlementOf({ paymentGroupId, merchantId, settlesAt: at }, new Date(now.getTime() + 2000));

  expect(await check(before, MERCHANT)).toMatchObject({ settled: true });
  const minuteLater = new Date(now.getTime() + 62_000).toISOString();
  expect(await check(after, MERCHANT)).toEqual({ settled: false, checkAt: minuteLater });
  expect(await check(unmarked, OTHER)).toEqual({ settled: false, checkAt: minuteLater });
  // A cut-off sooner than a minute is the next look; a cut-off passed is settled.
  const soon = new Date(now.getTime() + 10_000).toISOString();
  expect(await check(unmarked, OTHER, soon)).toEqual({ settled: false, checkAt: soon });
  expect(await check(unmarked, OTHER, now.toISOString())).toMatchObject({ settled: true });
});

test('defect: settle-now settled every approved sale of the merchant in one request (a 20,000-payment group took 43 s of its 10): a call settles at most so many, says `more`, and marks the merchant settled (bringing its notices forward) on the call that settles the last', async () => {
  const merchant = '32350000077';
  const sales = [];
  for (let i = 0; i < 5; i++) sales.push(await approved(merchant, 1000 + i));
  const { testClockStore } = await import('#store/test-clock');
  const first = await settleNow(merchant, new Date(), 2);
  expect(first).toMatchObject({ settledCount: 2, more: true, noticesBroughtForward: 0 });
  expect(await testClockStore().settledThrough(merchant)).toBeUndefined();
  expect(await settleNow(merchant, new Date(), 2)).toMatchObject({ settledCount: 2, more: true });
  expect(await testClockStore().settledThrough(merchant)).toBeUndefined();
  const last = await settleNow(merchant, new Date(), 2);
  expect(last).toMatchObject({ settledCount: 1, more: false });
  expect(await testClockStore().settledThrough(merchant)).toBeDefined();
  for (const sale of sales)
    expect((await requireTransaction(sale.transactionId, merchant)).transaction.clockSettledAt).toBeDefined();
});

/** Another merchant's approved sale on the day index, processed at `at` (as the sale path writes it). */
const othersSale = (merchantId: string, at: Date) => {
  const transactionId = newId();
  return table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...keys.transaction(transactionId),
        ...keys.dayIndex('TXN', at.toISOString(), transactionId),
        entity: 'transaction',
        transactionId,
        merchantId,
        status: 'Approved',
        processedAt: at.toISOString(),
        settlesAt: new Date(at.getTime() + 3_600_000).toISOString(),
      },
    }),
  );
};

/** The day-index entries the container's client evaluates (DynamoDB's ScannedCount) while `run` runs. */
async function dayIndexEvaluated<T>(run: () => Promise<T>): Promise<{ result: T; evaluated: number }> {
  let evaluated = 0;
  const name = `count-day-index-${newId()}`;
  type Args = { input: { ExpressionAttributeValues?: Record<string, unknown> } };
  ddb().middlewareStack.add(
    ((next: (args: Args) => Promise<{ output: { ScannedCount?: number } }>) => async (args: Args) => {
      const out = await next(args);
      if (String(args.input.ExpressionAttributeValues?.[':day'] ?? '').startsWith('TXN#DAY#'))
        evaluated += out.output.ScannedCount ?? 0;
      return out;
    }) as never,
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), evaluated };
  } finally {
    ddb().middlewareStack.remove(name);
  }
}

test("defect: settle-now read every merchant's sales of its window in one request (a busy stage's day, without bound): a call evaluates about so many day-index entries, goes on where the last stopped, and the run's last call marks the merchant settled through the run's start", async () => {
  const [merchant, other] = ['32350000078', '32350000079'];
  const start = Date.now();
  for (let i = 0; i < 180; i++) await othersSale(other, new Date(start - 600_000 + i * 3000));
  const mine = [await approved(merchant, 1001), await approved(merchant, 1002)];
  const BUDGET = 40;
  const calls: { more: boolean; settledCount: number; evaluated: number }[] = [];
  const first = new Date();
  for (let call = 0; call < 20; call++) {
    const { result, evaluated } = await dayIndexEvaluated(() =>
      settleNow(merchant, call === 0 ? first : new Date(), 2_000, BUDGET),
    );
    calls.push({ more: result.more, settledCount: result.settledCount, evaluated });
    if (!result.more) break;
  }
  const { testClockStore } = await import('#store/test-clock');
  // Several calls, each within the budget (at most two entries more for each of 9 partitions).
  expect(calls.length).toBeGreaterThan(3);
  for (const call of calls) expect(call.evaluated).toBeLessThanOrEqual(BUDGET + 18);
  expect(calls.at(-1)!.more).toBe(false);
  expect(calls.reduce((n, c) => n + c.settledCount, 0)).toBe(2);
  for (const sale of mine)
    expect((await requireTransaction(sale.transactionId, merchant)).transaction.clockSettledAt).toBeDefined();
  expect(await testClockStore().settledThrough(merchant)).toBe(first.toISOString());

  // A sale answered behind where a run had read (as one still Pending while it read there): the
  // next call, a new run, reads the window again and settles it.
  const late = await approved(merchant, 1003);
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.transaction(late.transactionId) }),
  );
  const earlier = new Date(start - 300_000).toISOString();
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...Item, ...keys.dayIndex('TXN', earlier, late.transactionId), processedAt: earlier },
    }),
  );
  let settled = 0;
  for (let call = 0; call < 20; call++) {
    const result = await settleNow(merchant, new Date(), 2_000, BUDGET);
    settled += result.settledCount;
    if (!result.more) break;
  }
  expect(settled).toBe(1);
  expect((await requireTransaction(late.transactionId, merchant)).transaction.clockSettledAt).toBeDefined();
});

test('an adapter without a test clock makes settle-now a 403', async () => {
  const sandbox = paymentProcessor();
  const withoutClock: PaymentProcessor = {
    voidsBankDebits: sandbox.voidsBankDebits,
    voidIsRefund: sandbox.voidIsRefund,
    tokenize: (r) => sandbox.tokenize(r),
    sale: (r) => sandbox.sale(r),
    void: (r) => sandbox.void(r),
    refund: (r) => sandbox.refund(r),
    reverseUnanswered: (r) => sandbox.reverseUnanswered(r),
    settlementTime: (t) => sandbox.settlementTime(t),
    listActivity: (since, until) => sandbox.listActivity(since, until),
    accountUpdates: (since, until) => sandbox.accountUpdates(since, until),
  };
  useProcessor(withoutClock);
  try {
    await expect(settleNow(MERCHANT, new Date())).rejects.toBeInstanceOf(ForbiddenError);
  } finally {
    useProcessor(sandbox);
  }
});
