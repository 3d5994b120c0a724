/**
 * Refunds of bank debits that have not cleared (docs/product.md "Reversals of bank debits") against
 * DynamoDB Local and the real sandbox: held (Pending, `heldUntilCleared`) until the debit's
 * `cleared` notice, then sent once by the clearing's follow-up however many backstop runs meet it;
 * cancelled (Failed, saying why) by a return that comes first; a return after a completed refund
 * recorded `afterRefund`; a crash between the clearing's transaction and the sending, and one
 * after the processor's answer, finished by the next pass with the same key; a processor that
 * cannot cancel a submitted debit reverses it by a held refund, never a void.
 */
import { applyNotice } from '#core/notices';
import { runDueFollowUps } from '#core/notice-follow-ups';
import { runNoticeBackstop } from '#core/notice-backstop';
import { refundSale, voidSale } from '#core/reversals';
import { listReturns } from '#core/returns';
import { runSale } from '#core/sale';
import { voidOrRefundGroup } from '#core/void-or-refund';
import type { Group, Payment } from '#domain/groups';
import { emptyTotals, saleAuthResponse } from '#domain/processing';
import type { ServiceEvent } from '#domain/events';
import { processorKeys } from '#domain/processor-keys';
import { transactionView } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import type { PaymentProcessor, ProcessorNotice } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { BadRequestError } from '#shared/errors';
import { newId, transactionIdOf } from '#shared/ids';
import { groupStore } from '#store/groups';
import { DynamoPaymentStore, paymentStore } from '#store/payments';
import { eventStore } from '#store/events';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { noticeStore } from '#store/notices';
import { DynamoPayorStore } from '#store/payors';
import { transactionStore } from '#store/transactions';
import { CrashError, injectCrash, removeCrashes } from '#support/ddb-faults';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeGroup, makePayor } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

/** Cut-offs every minute: a debit approved now has settled two minutes later. */
const SCHEDULE = { periodSeconds: 60, offsetSeconds: 0 };
const settled = () => new Date(Date.now() + 120_000);

let table: TestTable;
let sandbox: SandboxProcessor;
let merchantCount = 0;
beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    SERVICE_STAGE: 'dev',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
});
beforeEach(() => useProcessor(sandbox));
afterEach(() => {
  removeCrashes();
  jest.restoreAllMocks();
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A merchant of its own per test: the test clock brings forward only its notices. */
async function newMerchant(): Promise<string> {
  const n = String(++merchantCount).padStart(2, '0');
  const merchant: Merchant = {
    merchantId: `323700000${n}`,
    shortId: `237000${n}`,
    name: `Held refunds school ${n}`,
  };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  return merchant.merchantId;
}

/** A new payor whose CHECKING account behaves as `profile` at the sandbox: its profileId. */
async function checkingProfile(merchantId: string, profile: string): Promise<string> {
  const { payor, method } = makePayor(merchantId, { email: 'payor@example.com' }, profile);
  const checking = { ...method, accountType: 'CHECKING' as const, maskedAccountNumber: '********2227' };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  return `${payor.payorId}/${checking.savedPaymentMethodId}`;
}

/** An approved $40 debit of a new payor whose CHECKING account behaves as `profile`: its id. */
async function approvedDebit(merchantId: string, profile: string): Promise<string> {
  const request = saleRequest(merchantId, await checkingProfile(merchantId, profile), 4000);
  expect(await runSale(request, new Date())).toMatchObject({ status: 'Approved' });
  return request.transactionId;
}

/** A processed group of one $40 payment charged (as processing does) to a CHECKING account. */
async function paidDebitPayment(
  merchantId: string,
  profile: string,
  groupFields: Partial<Group> = {},
): Promise<Payment> {
  const profileId = await checkingProfile(merchantId, profile);
  const { group, payments } = makeGroup(1, { merchantId, scheduleDate: '2031-05-01', amountOf: () => 40 });
  const payment = { ...payments[0]!, profileId };
  await groupStore().createGroup({ ...group, status: 'processed', ...groupFields }, [payment]);
  const txn = await runSale(
    {
      ...saleRequest(merchantId, profileId, 4000),
      transactionId: transactionIdOf(payment.paymentId),
      processorKey: `payment:${payment.paymentId}`,
      paymentId: payment.paymentId,
      paymentGroupId: group.paymentGroupId,
    },
    new Date(),
  );
  expect(txn.status).toBe('Approved');
  const auth = saleAuthResponse(transactionView(txn, [], new Date()));
  expect(await paymentStore().setAuthResponse(payment, auth, new Date())).toBe(true);
  return (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!;
}

const reversalsOf = async (p: Payment) =>
  (await paymentStore().getPayment(p.paymentGroupId, p.paymentId))!.voidOrRefundResponses;

const found = async (transactionId: string) => (await transactionStore().find(transactionId))!;
const refundOf = async (transactionId: string, refundId: string) =>
  (await found(transactionId)).refunds.find((r) => r.refundId === refundId)!;
const eventTypes = async (merchantId: string, objectId: string): Promise<string[]> =>
  (await eventStore().page(merchantId, { objectId }, 100)).events.map((e: ServiceEvent) => e.type).sort();

/** The sandbox's refunds of these keys, as its activity report lists them (one per key). */
async function refundsAtProcessor(...refundIds: string[]): Promise<number> {
  const keys = new Set(refundIds.map((id) => processorKeys.refund(id)));
  const activity = await sandbox.listActivity(new Date(Date.now() - 3_600_000).toISOString());
  return activity.filter((a) => a.kind === 'refund' && keys.has(a.idempotencyKey)).length;
}

const backstop = () => runNoticeBackstop(new Date(), Date.now() + 30_000);

/** The sale's notices the sandbox lists as due now (after the test clock brought them forward). */
async function noticesOf(transactionId: string): Promise<ProcessorNotice[]> {
  const page = await sandbox.listNotices({ limit: 100, now: new Date().toISOString() });
  return page.notices.filter(
    (n) => 'charge' in n && n.charge.idempotencyKey === processorKeys.sale(transactionId),
  );
}

/** The sandbox with some of its calls replaced (its own state read through it). */
const sandboxWith = (over: Partial<PaymentProcessor>): PaymentProcessor =>
  new Proxy(sandbox, {
    get: (target, name, receiver) =>
      name in over ? over[name as keyof PaymentProcessor] : Reflect.get(target, name, receiver),
  });

test('a refund of a debit that has not cleared is held, then sent once when it clears, under 8 backstop runs at once', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'bank');
  const refundId = newId();
  const { refund, transaction } = await refundSale(mid, transactionId, 1500, refundId, settled());
  expect(refund).toMatchObject({ status: 'Pending', heldUntilCleared: true });
  // Reserved as any refund: the available amount already counts it; not asked of the processor.
  expect(transactionView(transaction, [refund], settled())).toMatchObject({
    refundedAmount: 15,
    availableRefundAmount: 25,
    refundHistory: [{ refundId, status: 'Pending', heldUntilCleared: true }],
  });
  expect(await refundsAtProcessor(refundId)).toBe(0);
  // Its repeat answers the same held refund.
  expect((await refundSale(mid, transactionId, 1500, refundId, settled())).refund).toMatchObject({
    status: 'Pending',
    heldUntilCleared: true,
  });

  expect(await sandbox.noticesNow({ merchantId: mid })).toEqual({ broughtForward: 1 });
  await Promise.all(Array.from({ length: 8 }, () => backstop()));
  await backstop();
  const after = await found(transactionId);
  expect(after.transaction).toMatchObject({ status: 'Approved', cleared: true, refundedCents: 1500 });
  expect(after.refunds).toEqual([
    expect.objectContaining({ refundId, status: 'Completed', responseCode: '00' }),
  ]);
  expect(await refundsAtProcessor(refundId)).toBe(1);
  expect(await eventTypes(mid, refundId)).toEqual(['refund.completed']);
  // A refund after the clearing is sent at once.
  const now = await refundSale(mid, transactionId, 500, newId(), settled());
  expect(now.refund).toMatchObject({ status: 'Completed' });
  expect(now.refund).not.toHaveProperty('heldUntilCleared');
});

test('8 refunds racing the clearing: each ends Completed, none left held', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'bank');
  await sandbox.noticesNow({ merchantId: mid });
  const refundIds = Array.from({ length: 8 }, () => newId());
  await Promise.all([
    ...refundIds.map((id) => refundSale(mid, transactionId, 100, id, settled())),
    backstop(),
    backstop(),
  ]);
  await backstop();
  const after = await found(transactionId);
  expect(after.transaction).toMatchObject({ cleared: true, refundedCents: 800, refundCount: 8 });
  expect(after.refunds.map((r) => r.status)).toEqual(Array(8).fill('Completed'));
  expect(await refundsAtProcessor(...refundIds)).toBe(8);
});

test('a return before the clearing cancels the held refund: Failed, saying the debit was returned first, announced once', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'nR01');
  const refundId = newId();
  await refundSale(mid, transactionId, 4000, refundId, settled());

  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  await backstop();
  const after = await found(transactionId);
  expect(after.transaction).toMatchObject({ status: 'Returned', refundedCents: 0, refundCount: 0 });
  expect(after.transaction.return).not.toHaveProperty('afterRefund');
  expect(after.refunds).toEqual([
    expect.objectContaining({
      refundId,
      status: 'Failed',
      responseCode: 'R01',
      responseMessage: expect.stringMatching(/returned .*before it cleared/),
    }),
  ]);
  expect(await refundsAtProcessor(refundId)).toBe(0);
  expect(await eventTypes(mid, refundId)).toEqual(['refund.failed']);
});

test("defect: refund.completed and refund.failed carried the refund without its sale's availableRefundAmount, which the Refund object the API answers has", async () => {
  const mid = await newMerchant();
  const clears = await approvedDebit(mid, 'bank');
  const returned = await approvedDebit(mid, 'nR01');
  const completed = newId();
  const failed = newId();
  await refundSale(mid, clears, 1500, completed, settled());
  await refundSale(mid, returned, 1000, failed, settled());
  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  await backstop();
  const data = async (refundId: string) =>
    (await eventStore().page(mid, { objectId: refundId }, 100)).events.map((e: ServiceEvent) => [
      e.type,
      e.data,
    ]);
  // The cleared sale of 40.00 has 25.00 left after the refund; the returned one nothing.
  expect(await data(completed)).toEqual([
    [
      'refund.completed',
      expect.objectContaining({ refundId: completed, amount: 15, availableRefundAmount: 25 }),
    ],
  ]);
  expect(await data(failed)).toEqual([
    [
      'refund.failed',
      expect.objectContaining({ refundId: failed, status: 'Failed', availableRefundAmount: 0 }),
    ],
  ]);
});

test('defect: a void of a returned debit answered another reason (its cut-off) — a returned debit has nothing left to reverse: availableRefundAmount 0, a refund and a void answer 400 saying it was returned', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'nR02');
  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  const { transaction, refunds } = await found(transactionId);
  expect(transactionView(transaction, refunds, settled())).toMatchObject({
    status: 'Returned',
    availableRefundAmount: 0,
  });
  const saysReturned = /was returned by the bank \(R02/;
  await expect(refundSale(mid, transactionId, 100, newId(), settled())).rejects.toThrow(saysReturned);
  await expect(refundSale(mid, transactionId, 100, newId(), settled())).rejects.toBeInstanceOf(
    BadRequestError,
  );
  await expect(voidSale(mid, transactionId, new Date())).rejects.toThrow(saysReturned);
  await expect(voidSale(mid, transactionId, new Date())).rejects.toBeInstanceOf(BadRequestError);
});

test('a return after a completed refund is recorded afterRefund: on the sale, its event and the returns list', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'nR10');
  const refundId = newId();
  await refundSale(mid, transactionId, 4000, refundId, settled());
  await sandbox.noticesNow({ merchantId: mid }); // the clearing: the held refund is sent
  await backstop();
  expect(await refundOf(transactionId, refundId)).toMatchObject({ status: 'Completed' });

  await sandbox.noticesNow({ merchantId: mid }); // R10 a cut-off later
  await backstop();
  const { transaction } = await found(transactionId);
  expect(transaction).toMatchObject({
    status: 'Returned',
    return: { code: 'R10', category: 'unauthorized', afterRefund: true },
  });
  const returned = (await eventStore().page(mid, { objectId: transactionId }, 100)).events.filter(
    (e) => e.type === 'transaction.returned',
  );
  expect(returned).toHaveLength(1);
  expect(returned[0]!.data).toMatchObject({ return: { code: 'R10', afterRefund: true } });
  const { items } = await listReturns(mid, {});
  expect(items).toEqual([expect.objectContaining({ transactionId, code: 'R10', afterRefund: true })]);
});

test('a crash between the clearing’s transaction and the held refund’s sending: the next pass sends it, once', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'bank');
  const refundId = newId();
  await refundSale(mid, transactionId, 2000, refundId, settled());
  await sandbox.noticesNow({ merchantId: mid });
  const [clearing] = await noticesOf(transactionId);
  expect(clearing).toMatchObject({ kind: 'cleared' });

  const isClearing = (input: Record<string, unknown>) =>
    JSON.stringify(input.TransactItems).includes(`NOTICE#${clearing!.noticeId}`);
  const crash = injectCrash(ddb(), 'TransactWriteItemsCommand', 'after', isClearing, { dies: true });
  await expect(applyNotice(clearing!, new Date())).rejects.toBeInstanceOf(CrashError);
  expect(crash.crashed).toBe(1);
  crash.remove(); // the restart

  // The clearing held, with its follow-up written ahead; the refund not sent yet.
  expect((await found(transactionId)).transaction).toMatchObject({ cleared: true });
  expect(await noticeStore().followUp(clearing!.noticeId)).toMatchObject({
    work: { kind: 'refunds', transactionId, refundIds: [refundId] },
  });
  expect(await refundOf(transactionId, refundId)).toMatchObject({ status: 'Pending' });
  expect(await refundsAtProcessor(refundId)).toBe(0);

  // A crash after the processor answered, before the refund's outcome: left for the next pass.
  let crashAfterAnswer = true;
  useProcessor(
    sandboxWith({
      refund: async (r) => {
        const answer = await sandbox.refund(r);
        if (crashAfterAnswer) {
          crashAfterAnswer = false;
          throw new Error('simulated crash after the processor answered');
        }
        return answer;
      },
    }),
  );
  expect(await runDueFollowUps(new Date(Date.now() + 1000), 10)).toBe(0);
  expect(await refundOf(transactionId, refundId)).toMatchObject({ status: 'Pending' });
  expect(await refundsAtProcessor(refundId)).toBe(1);

  expect(await runDueFollowUps(new Date(Date.now() + 2000), 10)).toBeGreaterThanOrEqual(1);
  expect(await refundOf(transactionId, refundId)).toMatchObject({ status: 'Completed' });
  expect(await noticeStore().followUp(clearing!.noticeId)).toBeUndefined();
  expect(await runDueFollowUps(new Date(Date.now() + 3000), 10)).toBe(0);
  expect(await refundsAtProcessor(refundId)).toBe(1);
  expect(await eventTypes(mid, refundId)).toEqual(['refund.completed']);
});

test('a processor that cannot cancel a submitted debit: a void answers 400, a refund before the cut-off is held', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'bank');
  // The sandbox voids a debit before its cut-off.
  await expect(refundSale(mid, transactionId, 100, newId(), new Date())).rejects.toThrow(/void it instead/);

  useProcessor(sandboxWith({ voidsBankDebits: false }));
  await expect(voidSale(mid, transactionId, new Date())).rejects.toThrow(
    /cannot cancel once submitted; refund it instead/,
  );
  const { refund } = await refundSale(mid, transactionId, 4000, newId(), new Date());
  expect(refund).toMatchObject({ status: 'Pending', heldUntilCleared: true });
  expect(await refundsAtProcessor(refund.refundId)).toBe(0);
  expect((await found(transactionId)).transaction).toMatchObject({ status: 'Approved', refundedCents: 4000 });
});

test('a group’s void-or-refund of a settled, uncleared debit holds its refund; the clearing sends it and the payment shows it Completed', async () => {
  const mid = await newMerchant();
  const payment = await paidDebitPayment(mid, 'bank');
  const { outcomes } = await voidOrRefundGroup(payment.paymentGroupId, mid, undefined, settled());
  expect(outcomes).toEqual([
    expect.objectContaining({
      outcome: 'refund_scheduled',
      response: expect.objectContaining({
        type: 'Refund',
        status: 'Pending',
        // Defect: a Pending refund's response had no responseCode (DESIGN: every item has one).
        responseCode: 'PD',
        amount: 40,
        heldUntilCleared: true,
      }),
    }),
  ]);
  const refundId = outcomes[0]!.response!.transactionId;
  expect(await refundsAtProcessor(refundId)).toBe(0);
  // Repeated: the same held refund, nothing more.
  const again = await voidOrRefundGroup(payment.paymentGroupId, mid, undefined, settled());
  expect(again.outcomes[0]).toMatchObject({ outcome: 'skipped', reason: 'already reversed' });

  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  expect(await reversalsOf(payment)).toEqual([
    expect.objectContaining({
      type: 'Refund',
      transactionId: refundId,
      status: 'Completed',
      responseCode: '00',
    }),
  ]);
  expect((await reversalsOf(payment))![0]).not.toHaveProperty('heldUntilCleared');
  expect(await refundsAtProcessor(refundId)).toBe(1);
  expect(await eventTypes(mid, payment.paymentId)).toContain('payment.refunded');
});

test('a group’s held refund cancelled by a return: Failed on the sale and on the payment, saying the debit was returned first', async () => {
  const mid = await newMerchant();
  const payment = await paidDebitPayment(mid, 'nR01');
  // A processor that cannot cancel a submitted debit: held even before the cut-off.
  useProcessor(sandboxWith({ voidsBankDebits: false }));
  const { outcomes } = await voidOrRefundGroup(payment.paymentGroupId, mid, undefined, new Date());
  expect(outcomes[0]).toMatchObject({ outcome: 'refund_scheduled', response: { heldUntilCleared: true } });
  const refundId = outcomes[0]!.response!.transactionId;

  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  const sale = await found(transactionIdOf(payment.paymentId));
  expect(sale.transaction).toMatchObject({ status: 'Returned', refundedCents: 0 });
  expect(sale.refunds).toEqual([
    expect.objectContaining({ refundId, status: 'Failed', responseCode: 'R01' }),
  ]);
  const [reversal] = (await reversalsOf(payment))!;
  expect(reversal).toMatchObject({
    type: 'Refund',
    transactionId: refundId,
    status: 'Failed',
    responseCode: 'R01',
    responseMessage: expect.stringMatching(/returned .*before it cleared/),
  });
  expect(reversal).not.toHaveProperty('heldUntilCleared');
  expect(await refundsAtProcessor(refundId)).toBe(0);
});

test('defect: a group’s held refund cancelled by a return between its reservation and its record on the payment showed Pending (held) on the payment for good, counted as refunded', async () => {
  const mid = await newMerchant();
  const payment = await paidDebitPayment(mid, 'nR01');
  useProcessor(sandboxWith({ voidsBankDebits: false }));
  // The return is applied after the refund is reserved, before the reversal is recorded on the
  // payment (which then reads the payment, changed by the return, again).
  const record = DynamoPaymentStore.prototype.setReversals;
  jest.spyOn(DynamoPaymentStore.prototype, 'setReversals').mockImplementationOnce(async function (
    this: DynamoPaymentStore,
    ...args
  ) {
    await sandbox.noticesNow({ merchantId: mid });
    await backstop();
    return record.apply(this, args);
  });
  const { outcomes } = await voidOrRefundGroup(payment.paymentGroupId, mid, undefined, new Date());
  const refundId = outcomes[0]!.response!.transactionId;
  expect(await refundOf(transactionIdOf(payment.paymentId), refundId)).toMatchObject({
    status: 'Failed',
    responseCode: 'R01',
  });

  const reversals = (await reversalsOf(payment))!;
  expect(reversals).toEqual([
    expect.objectContaining({
      type: 'Refund',
      transactionId: refundId,
      status: 'Failed',
      responseCode: 'R01',
    }),
  ]);
  expect(reversals[0]).not.toHaveProperty('heldUntilCleared');
  expect(await refundsAtProcessor(refundId)).toBe(0);
});

test('a return of a debit with many held refunds is applied all the same: the refunds it cancels never take its transaction past DynamoDB’s 100 items', async () => {
  const mid = await newMerchant();
  const transactionId = await approvedDebit(mid, 'nR01');
  // Each refund the return cancels is two items of its transaction (the refund and its event).
  const refundIds: string[] = [];
  for (let i = 0; i < 47; i++) {
    const refundId = newId();
    try {
      await refundSale(mid, transactionId, 1, refundId, settled());
      refundIds.push(refundId);
    } catch (error) {
      // A sale may hold fewer refunds held at once: a refusal says so (400), and nothing is reserved.
      expect(error).toBeInstanceOf(BadRequestError);
    }
  }
  const reserved = (await found(transactionId)).refunds;
  expect(reserved.map((r) => r.refundId).sort()).toEqual([...refundIds].sort());
  // A reservation on a sale read before the others were reserved is refused by its condition.
  const early = { ...(await found(transactionId)).transaction, refundCount: 1, refundedCents: 1 };
  const late = { ...reserved[0]!, refundId: newId(), date: new Date().toISOString() };
  expect(await transactionStore().reserveRefund(early, late)).toBe(false);

  await sandbox.noticesNow({ merchantId: mid });
  const [returned] = await noticesOf(transactionId);
  expect(returned).toMatchObject({ kind: 'returned', code: 'R01' });
  expect(await applyNotice(returned!, new Date())).toEqual({ outcome: 'applied' });
  const after = await found(transactionId);
  expect(after.transaction).toMatchObject({ status: 'Returned', refundedCents: 0, refundCount: 0 });
  expect(after.refunds.map((r) => r.status)).toEqual(refundIds.map(() => 'Failed'));
});

test('defect: a payment the merchant refunded (the refund held until its debit cleared) whose debit was then returned R01 had its retry scheduled, and a round would have debited the payor again: it is not retried (payment_reversed)', async () => {
  const mid = await newMerchant();
  const payment = await paidDebitPayment(mid, 'nR01', {
    retryPolicy: { maxRetries: 2, intervalHours: 24 },
    processingSummary: { ...emptyTotals(), approved: 1, processedAt: new Date().toISOString() },
  });
  useProcessor(sandboxWith({ voidsBankDebits: false }));
  const { outcomes } = await voidOrRefundGroup(payment.paymentGroupId, mid, undefined, new Date());
  expect(outcomes[0]).toMatchObject({ outcome: 'refund_scheduled', response: { heldUntilCleared: true } });

  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  await runDueFollowUps(new Date(Date.now() + 1000), 10);

  const after = (await paymentStore().getPayment(payment.paymentGroupId, payment.paymentId))!;
  expect(after.authResponse).toMatchObject({ status: 'Returned', return: { code: 'R01' } });
  expect(after.retry).toMatchObject({ status: 'not_retried', reason: 'payment_reversed' });
});
