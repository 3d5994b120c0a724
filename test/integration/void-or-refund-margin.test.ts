/**
 * Issue 25, defect 4 ("a processed payment inside the void margin is skipped"), on DynamoDB Local
 * with the sandbox processor. Within the void safety margin before a sale's settlement cut-off no
 * void may be reserved (docs/decisions.md "Void safety margin"); a group's void-or-refund then
 * records a refund ahead (Pending, its amount reserved on the sale), answers `refund_scheduled`,
 * and the sweeper sends it right after the cut-off, recording the outcome on the payment. The
 * merchant never has to call again, nothing is refunded twice, and the reconciliation stays clean.
 *
 * The sales here settle 30 s after they are made (a daily cut-off placed there), inside the 36 s
 * margin of hourly settlement. Everything runs on the test clock: it stands still while a test
 * charges and reverses, however slow the machine, and the test moves it 16 s past the cut-off for
 * the sweeper's run "right after the cut-off", so that no test waits for it.
 */
import type { Context } from 'aws-lambda';
import { applyNotice } from '#core/notices';
import { reconcile, type ReconcileDeps } from '#core/reconcile';
import { runSale } from '#core/sale';
import { sendScheduledRefund } from '#core/scheduled-refunds';
import { sweep } from '#core/sweeper';
import { voidOrRefundGroup } from '#core/void-or-refund';
import { saleAuthResponse } from '#domain/processing';
import { transactionView, voidMarginSeconds, type Transaction } from '#domain/transactions';
import type { Group, Payment } from '#domain/groups';
import { useProcessor } from '#processor/index';
import type { ProcessorNotice } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { useClock } from '#shared/clock';
import { config, reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { transactionIdOf } from '#shared/ids';
import { groupStore } from '#store/groups';
import { DynamoPaymentStore, paymentStore } from '#store/payments';
import { ReconciliationRecords } from '#store/reconciliation';
import { markRefundRefused, markRefundSent } from '#store/refund-sends';
import { transactionStore } from '#store/transactions';
import { makeGroup } from '#support/fixtures/index';
import { useTestClock, type TestClock } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { saleRequest, storedProfile } from '#support/sales';

const MERCHANT = '32350000002';
/** How far ahead of a sale its cut-off falls: inside the margin. */
const CUT_OFF_AHEAD_SECONDS = 30;

let table: TestTable;
let processor: FaultyProcessor;
let sandbox: SandboxProcessor;
/** When the tests start, on the test clock (which only they move, and only forward). */
const T0 = Date.parse('2031-04-30T10:00:00.000Z');
let testClock: TestClock;

beforeAll(async () => {
  testClock = useTestClock(T0);
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  // The margin of hourly settlement (36 s) holds a cut-off 30 s ahead.
  expect(voidMarginSeconds(config().settlement.periodSeconds)).toBeGreaterThan(CUT_OFF_AHEAD_SECONDS + 2);
});
afterEach(() => {
  processor.clear();
  jest.restoreAllMocks();
});
afterAll(async () => {
  useClock(undefined);
  useProcessor(undefined);
  await table.drop();
});

/**
 * A processed group of `charged + unprocessed` payments: the first `charged` approved, their sales
 * settling at one cut-off about CUT_OFF_AHEAD_SECONDS from now (a sandbox whose daily cut-off is
 * placed there); the others never answered. Returns the charged payments as stored.
 */
async function processedGroupNearCutOff(
  charged: number,
  unprocessed = 0,
  aheadSeconds = CUT_OFF_AHEAD_SECONDS,
): Promise<{ group: Group; payments: Payment[] }> {
  sandbox = new SandboxProcessor(ddb(), table.tableName, {
    periodSeconds: 86_400,
    offsetSeconds: (Math.floor(testClock.nowMs() / 1000) + aheadSeconds) % 86_400,
  });
  processor = new FaultyProcessor(sandbox);
  useProcessor(processor);
  const profile = await storedProfile(table, MERCHANT, 'ok');
  const { group, payments } = makeGroup(charged + unprocessed, {
    merchantId: MERCHANT,
    scheduleDate: '2031-05-01',
    amountOf: (i) => 20 + i / 100,
  });
  const stored = payments.map((p) => ({ ...p, profileId: profile }));
  await groupStore().createGroup({ ...group, status: 'processed' }, stored);
  const answered: Payment[] = [];
  for (const payment of stored.slice(0, charged)) {
    // As processing charges a payment: its sale id and processor key derived from the payment.
    const txn = await runSale(
      {
        ...saleRequest(MERCHANT, profile, payment.amountCents),
        transactionId: transactionIdOf(payment.paymentId),
        processorKey: `payment:${payment.paymentId}`,
        paymentId: payment.paymentId,
      },
      testClock.now(),
    );
    expect(txn.status).toBe('Approved');
    const auth = saleAuthResponse(transactionView(txn, [], testClock.now()));
    expect(await paymentStore().setAuthResponse(payment, auth, testClock.now())).toBe(true);
    answered.push((await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!);
  }
  return { group, payments: answered };
}

const saleOf = async (payment: Payment) =>
  (await transactionStore().find(payment.authResponse!.transactionId!))!;
const cutOffOf = async (payment: Payment) => Date.parse((await saleOf(payment)).transaction.settlesAt!);
/**
 * A group of one payment processed near its cut-off, whose void-or-refund scheduled the refund
 * for after the cut-off and crashed before recording it on the payment.
 */
async function refundScheduledThenCrash() {
  const { group, payments } = await processedGroupNearCutOff(1);
  const payment = payments[0]!;
  const cutOff = await cutOffOf(payment);
  jest
    .spyOn(DynamoPaymentStore.prototype, 'setReversals')
    .mockRejectedValueOnce(new Error('simulated crash after the refund was reserved'));
  await expect(voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now())).rejects.toThrow(
    'simulated crash',
  );
  return { group, payment, cutOff };
}

/** The time right after the cut-off (past the 15 s the sweeper leaves work alone). */
const rightAfter = (cutOff: number) => new Date(cutOff + 16_000);
/** Moves the test clock to `at` (the sweeper's run) and gives that time. */
const moveTo = (at: Date): Date => {
  testClock.set(at);
  return at;
};
/** The processor's notice that the cardholder disputed the sale's charge at `at`. */
const disputeOpened = (transaction: Transaction, at: Date) =>
  ({
    noticeId: `n_${crypto.randomUUID()}`,
    merchantId: MERCHANT,
    objectId: `dp_${transaction.transactionId}`,
    sequence: 1,
    occurredAt: at.toISOString(),
    kind: 'dispute_opened',
    charge: {
      processorTransactionId: transaction.processorTransactionId!,
      idempotencyKey: transaction.processorKey!,
    },
    disputeId: `dp_${transaction.transactionId}`,
    status: 'needs_response',
    reason: 'general',
    amountCents: transaction.approvedCents,
  }) as ProcessorNotice;

const refundCalls = () => processor.calls.filter((c) => c.kind === 'REFUND');

test('defect 4: a processed payment inside the void margin is refunded after the cut-off, not skipped', async () => {
  const { group, payments } = await processedGroupNearCutOff(2);
  const cutOff = await cutOffOf(payments[0]!);
  expect(cutOff - testClock.nowMs()).toBe(CUT_OFF_AHEAD_SECONDS * 1000);
  expect(cutOff - testClock.nowMs()).toBeLessThan(
    voidMarginSeconds(config().settlement.periodSeconds) * 1000,
  );

  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
  expect(outcomes.map((o) => o.outcome)).toEqual(['refund_scheduled', 'refund_scheduled']);
  for (const [i, outcome] of outcomes.entries()) {
    expect(outcome.response).toMatchObject({
      type: 'Refund',
      status: 'Pending',
      amount: payments[i]!.amountCents / 100,
      scheduledFor: new Date(cutOff).toISOString(),
    });
  }
  // Nothing went to the processor before the cut-off; the refunds are written ahead, their amounts
  // reserved (no second refund or void can take them), and shown on the payments.
  expect(processor.calls.filter((c) => c.kind !== 'SALE')).toEqual([]);
  for (const [i, payment] of payments.entries()) {
    const { transaction, refunds } = await saleOf(payment);
    expect(transaction).toMatchObject({
      status: 'Approved',
      refundedCents: payment.amountCents,
      refundCount: 1,
    });
    expect(refunds).toEqual([
      expect.objectContaining({ status: 'Pending', amountCents: payment.amountCents }),
    ]);
    const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
    expect(shown!.voidOrRefundResponses).toEqual([outcomes[i]!.response]);
  }
  // A repeat before the cut-off refunds nothing more.
  const repeat = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
  expect(repeat.outcomes.map((o) => [o.outcome, o.reason])).toEqual([
    ['skipped', 'already reversed'],
    ['skipped', 'already reversed'],
  ]);

  // The sweeper leaves them until the cut-off, then sends each once and records the outcome.
  expect((await sweep(testClock.now(), { olderThanSeconds: 0 })).settled).toEqual([]);
  expect(refundCalls()).toEqual([]);
  const report = await sweep(moveTo(rightAfter(cutOff)), { olderThanSeconds: 15 });
  expect(report.settled.map((e) => [e.kind, e.result])).toEqual([
    ['refund', 'Completed'],
    ['refund', 'Completed'],
  ]);
  expect(refundCalls()).toHaveLength(2);
  for (const [i, payment] of payments.entries()) {
    const { transaction, refunds } = await saleOf(payment);
    expect(transaction).toMatchObject({ refundedCents: payment.amountCents, refundCount: 1 });
    expect(refunds).toEqual([expect.objectContaining({ status: 'Completed', responseCode: '00' })]);
    const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
    expect(shown!.voidOrRefundResponses).toEqual([
      {
        ...outcomes[i]!.response,
        status: 'Completed',
        responseCode: '00',
        responseMessage: 'Refund accepted',
      },
    ]);
  }
  // A second sweep sends nothing again.
  await sweep(moveTo(rightAfter(cutOff + 60_000)), { olderThanSeconds: 15 });
  expect(refundCalls()).toHaveLength(2);

  // The reconciliation finds the records and the processor in agreement.
  const deps: ReconcileDeps = {
    records: new ReconciliationRecords(table.db, table.tableName),
    processor: sandbox,
    sweep: async () => undefined,
  };
  const reconciled = await reconcile({ since: new Date(T0 - 60_000).toISOString(), heal: false }, deps);
  expect(reconciled.differences).toEqual([]);
}, 60_000);

test('defect 4: a crash between the scheduled refund and its record on the payment leaves it to the sweeper, which sends it once and shows it', async () => {
  const { group, payment, cutOff } = await refundScheduledThenCrash();
  expect(
    (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!.voidOrRefundResponses,
  ).toBeUndefined();
  const { refunds } = await saleOf(payment);
  expect(refunds).toEqual([expect.objectContaining({ status: 'Pending', amountCents: payment.amountCents })]);

  // A crash of the sweeper after the processor refunded: the refund stays Pending for the next run.
  processor.failNext(`refund:${refunds[0]!.refundId}`, 'crash-after');
  const crashed = await sweep(moveTo(rightAfter(cutOff)), { olderThanSeconds: 15 });
  expect(crashed.unsettled).toHaveLength(1);
  const report = await sweep(rightAfter(cutOff), { olderThanSeconds: 15 });
  expect(report.settled.map((e) => e.result)).toEqual(['Completed']);
  // Two calls with one key: the processor answered the replay with its first refund.
  expect(refundCalls().map((c) => c.key)).toEqual([
    `refund:${refunds[0]!.refundId}`,
    `refund:${refunds[0]!.refundId}`,
  ]);
  // The processor's activity a second later (its listing ends before "now").
  testClock.advance(1_000);
  const ledger = await sandbox.listActivity(new Date(T0 - 60_000).toISOString());
  expect(ledger.filter((a) => a.idempotencyKey === `refund:${refunds[0]!.refundId}`)).toHaveLength(1);

  const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
  expect(shown!.voidOrRefundResponses).toEqual([
    expect.objectContaining({
      type: 'Refund',
      transactionId: refunds[0]!.refundId,
      status: 'Completed',
      amount: payment.amountCents / 100,
      scheduledFor: new Date(cutOff).toISOString(),
    }),
  ]);
  // A void-or-refund after it all reverses nothing again.
  const after = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, rightAfter(cutOff));
  expect(after.outcomes.map((o) => o.outcome)).toEqual(['skipped']);
  expect(refundCalls()).toHaveLength(2);
}, 60_000);

test('defect 4: the background void-or-refund counts a refund scheduled inside the margin in its summary, and the counts add up', async () => {
  // Two payments charged inside the margin, one never processed.
  const { group, payments } = await processedGroupNearCutOff(2, 1);
  const summary = {
    status: 'running' as const,
    generation: 1,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:vr:vr-1',
    startedAt: testClock.now().toISOString(),
    voidedCount: 0,
    refundedCount: 0,
    refundScheduledCount: 0,
    skippedCount: 0,
    failedCount: 0,
  };
  expect(await groupStore().putVoidOrRefundSummary(group.paymentGroupId, summary, undefined)).toBe(true);
  const { handler: reverseBatch } = await import('#lambdas/void-or-refund/reverse-batch');
  const { handler: complete } = await import('#lambdas/void-or-refund/complete');
  const { noCounts } = await import('#core/void-or-refund-state');
  const context = {
    functionName: 'test',
    awsRequestId: 'req',
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
  let state = {
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    generation: 1,
    proceed: true,
    executionArn: summary.executionArn,
    startedAt: summary.startedAt,
    cursor: null as string | null,
    counts: noCounts(),
    batches: 0,
  };
  do state = await reverseBatch(state, context);
  while (state.cursor !== null);
  await complete(state, context);
  expect((await groupStore().getGroup(group.paymentGroupId))!.voidOrRefundSummary).toMatchObject({
    status: 'done',
    voidedCount: 0,
    refundedCount: 0,
    refundScheduledCount: payments.length,
    skippedCount: 1,
    failedCount: 0,
  });
}, 60_000);

test('a refund scheduled inside the void margin is not sent once a dispute of its sale opened: Failed naming the dispute, its amount given back', async () => {
  const { group, payments } = await processedGroupNearCutOff(1);
  const payment = payments[0]!;
  const cutOff = await cutOffOf(payment);
  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
  expect(outcomes.map((o) => o.outcome)).toEqual(['refund_scheduled']);

  // Past the cut-off, the cardholder disputes the charge before the sweeper's run.
  const at = moveTo(rightAfter(cutOff));
  const { transaction } = await saleOf(payment);
  expect(await applyNotice(disputeOpened(transaction, at), at)).toEqual({ outcome: 'applied' });
  const disputeId = (await saleOf(payment)).transaction.dispute!.disputeId;
  const scheduled = (await saleOf(payment)).refunds[0]!;

  // (Refunds the tests before left scheduled are swept too: only this sale's are looked at.)
  const ofThisSale = (c: { key: string }) => c.key === `refund:${scheduled.refundId}`;
  const report = await sweep(at, { olderThanSeconds: 15 });
  expect(
    report.settled
      .filter((e) => e.transactionId === transaction.transactionId)
      .map((e) => [e.kind, e.result]),
  ).toEqual([['refund', 'Failed']]);
  expect(refundCalls().filter(ofThisSale)).toEqual([]);
  const { transaction: after, refunds } = await saleOf(payment);
  expect(after).toMatchObject({ refundedCents: 0, refundCount: 0 });
  expect(refunds).toEqual([
    expect.objectContaining({
      status: 'Failed',
      responseMessage: expect.stringContaining(`is disputed (dispute ${disputeId}, needs_response`),
    }),
  ]);
  const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
  expect(shown!.voidOrRefundResponses).toEqual([
    expect.objectContaining({ transactionId: refunds[0]!.refundId, status: 'Failed' }),
  ]);
  // A second sweep sends nothing.
  await sweep(moveTo(rightAfter(cutOff + 60_000)), { olderThanSeconds: 15 });
  expect(refundCalls().filter(ofThisSale)).toEqual([]);
}, 60_000);

test.each([
  ['inside the void margin (a refund it would schedule)', CUT_OFF_AHEAD_SECONDS, 'refunded'],
  ['before the void margin (a void it would send)', 3_600, 'voided'],
])(
  'defect: a group void-or-refund of a sale disputed before its cut-off answered it skipped "nothing left to refund" or failed; it is skipped naming the dispute, %s',
  async (_, aheadSeconds, what) => {
    const { group, payments } = await processedGroupNearCutOff(1, 0, aheadSeconds);
    const payment = payments[0]!;
    const { transaction } = await saleOf(payment);
    const at = testClock.now();
    expect(await applyNotice(disputeOpened(transaction, at), at)).toEqual({ outcome: 'applied' });
    const disputeId = (await saleOf(payment)).transaction.dispute!.disputeId;

    const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
    expect(outcomes).toEqual([
      {
        paymentId: payment.paymentId,
        outcome: 'skipped',
        reason: `transaction ${transaction.transactionId} is disputed (dispute ${disputeId}, needs_response, general): it cannot be ${what} while the dispute is open`,
      },
    ]);
    expect(processor.calls.filter((c) => c.kind !== 'SALE')).toEqual([]);
    const after = await saleOf(payment);
    expect(after.transaction).toMatchObject({ status: 'Approved', refundCount: 0 });
    expect(after.transaction.voidingAt).toBeUndefined();
    expect(after.refunds).toEqual([]);
    const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
    expect(shown!.voidOrRefundResponses ?? []).toEqual([]);
  },
  60_000,
);

test('defect: a repeated void-or-refund after the cut-off sent a scheduled refund its sale was disputed since (never recorded on the payment: a crash), where the sweeper would have refused it', async () => {
  const { group, payment, cutOff } = await refundScheduledThenCrash();
  const scheduled = (await saleOf(payment)).refunds[0]!;
  expect(scheduled).toMatchObject({ status: 'Pending', sendAfter: new Date(cutOff).toISOString() });

  // Past the cut-off, before the sweeper's run, the cardholder disputes the charge; the merchant
  // repeats the group's void-or-refund.
  const at = moveTo(rightAfter(cutOff));
  const { transaction } = await saleOf(payment);
  expect(await applyNotice(disputeOpened(transaction, at), at)).toEqual({ outcome: 'applied' });
  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, at);

  expect(refundCalls().filter((c) => c.key === `refund:${scheduled.refundId}`)).toEqual([]);
  expect(outcomes.map((o) => o.outcome)).toEqual(['failed']);
  const { transaction: after, refunds } = await saleOf(payment);
  expect(after).toMatchObject({ refundedCents: 0, refundCount: 0 });
  expect(refunds).toEqual([
    expect.objectContaining({ status: 'Failed', responseMessage: expect.stringContaining('is disputed') }),
  ]);
  const shown = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
  expect(shown!.voidOrRefundResponses).toEqual([
    expect.objectContaining({ transactionId: scheduled.refundId, status: 'Failed' }),
  ]);
}, 60_000);

test('defect: a repeated void-or-refund sent a scheduled refund the sweeper had marked refused before a crash (the refusal then gave back an amount the processor had refunded)', async () => {
  const { group, payment, cutOff } = await refundScheduledThenCrash();
  const scheduled = (await saleOf(payment)).refunds[0]!;
  // The sweeper's run marked it refused (its sale disputed), then crashed before finishing it.
  const at = moveTo(rightAfter(cutOff));
  expect(
    await markRefundRefused(ddb(), table.tableName, scheduled, at.toISOString(), 'refused: disputed'),
  ).toBe(true);

  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, at);

  expect(refundCalls().filter((c) => c.key === `refund:${scheduled.refundId}`)).toEqual([]);
  expect(outcomes.map((o) => o.outcome)).toEqual(['failed']);
  const { transaction: after, refunds } = await saleOf(payment);
  expect(after).toMatchObject({ refundedCents: 0, refundCount: 0 });
  expect(refunds).toEqual([
    expect.objectContaining({ status: 'Failed', responseMessage: 'refused: disputed' }),
  ]);
}, 60_000);

test('a scheduled refund the processor made before a crash is not taken back by a dispute opened after it: the sweeper replays it and records it Completed', async () => {
  const { group, payments } = await processedGroupNearCutOff(1);
  const payment = payments[0]!;
  const cutOff = await cutOffOf(payment);
  await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
  const scheduled = (await saleOf(payment)).refunds[0]!;
  const key = `refund:${scheduled.refundId}`;

  // The sweeper's run after the cut-off: the processor refunds, the answer is lost.
  processor.failNext(key, 'crash-after');
  const at = moveTo(rightAfter(cutOff));
  const crashed = await sweep(at, { olderThanSeconds: 15 });
  expect(crashed.unsettled.filter((e) => e.transactionId === scheduled.transactionId)).toHaveLength(1);
  // Then the cardholder disputes the charge.
  const { transaction } = await saleOf(payment);
  expect(await applyNotice(disputeOpened(transaction, at), at)).toEqual({ outcome: 'applied' });

  // The next run replays the refund the processor made: the record says what happened.
  const report = await sweep(moveTo(rightAfter(cutOff + 60_000)), { olderThanSeconds: 15 });
  expect(
    report.settled.filter((e) => e.transactionId === scheduled.transactionId).map((e) => e.result),
  ).toEqual(['Completed']);
  expect(refundCalls().filter((c) => c.key === key)).toHaveLength(2);
  const { transaction: after, refunds } = await saleOf(payment);
  expect(after).toMatchObject({ refundedCents: payment.amountCents, refundCount: 1 });
  expect(refunds).toEqual([expect.objectContaining({ status: 'Completed' })]);
}, 60_000);

test('two runs at once: a scheduled refund one run marked sent is never recorded Failed by another that read it unsent after its sale was disputed', async () => {
  const { group, payments } = await processedGroupNearCutOff(1);
  const payment = payments[0]!;
  const cutOff = await cutOffOf(payment);
  await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, testClock.now());
  const read = (await saleOf(payment)).refunds[0]!;
  const key = `refund:${read.refundId}`;
  const at = moveTo(rightAfter(cutOff));
  // Run A read the sale undisputed and marks the refund sent: it asks the processor next.
  const { transaction: undisputed } = await saleOf(payment);
  expect(await markRefundSent(ddb(), table.tableName, read, at.toISOString())).toBe(true);
  // Meanwhile the cardholder disputes the charge, and run B, which read the refund unsent, reads the
  // sale disputed.
  expect(await applyNotice(disputeOpened(undisputed, at), at)).toEqual({ outcome: 'applied' });
  const { transaction: disputed } = await saleOf(payment);
  const b = await sendScheduledRefund(disputed, read, at);
  // Run A goes on: the processor refunds.
  const a = await sendScheduledRefund(undisputed, { ...read, sentAt: at.toISOString() }, at);
  expect([b.status, a.status]).toEqual(['Completed', 'Completed']);
  const { transaction: after, refunds } = await saleOf(payment);
  expect(refunds).toEqual([expect.objectContaining({ status: 'Completed' })]);
  expect(after).toMatchObject({ refundedCents: payment.amountCents, refundCount: 1 });
  expect(refundCalls().filter((c) => c.key === key).length).toBeGreaterThanOrEqual(1);
}, 60_000);
