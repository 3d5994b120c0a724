/**
 * Card disputes against DynamoDB Local (docs/product.md "Disputes"): the sandbox's dispute cards
 * plan their dispute with the charge's ledger entry; the test clock brings each cut-off's notice
 * forward and the notices backstop applies it once, however often and however many runs at once:
 * the dispute's record and list row, the sale's `dispute`, its events, a refund and a void refused
 * while it is open, the card's method revoked for fraud (core/disputes.ts, store/disputes.ts).
 */
import { createHash } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDispute, listDisputes } from '#core/dispute-list';
import { runDueFollowUps } from '#core/notice-follow-ups';
import { applyNotice } from '#core/notices';
import { groupReport } from '#core/reports';
import { runNoticeBackstop } from '#core/notice-backstop';
import { refundSale, voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import { sweep } from '#core/sweeper';
import { disputeIdOf } from '#domain/disputes';
import type { ServiceEvent } from '#domain/events';
import { attemptOf } from '#domain/groups';
import { countOutcome, emptyTotals, saleAuthResponse, summaryView } from '#domain/processing';
import { processorKeys } from '#domain/processor-keys';
import { transactionView } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import type { ProcessorNotice } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import { ddb } from '#shared/ddb';
import { attemptTransactionId, newId } from '#shared/ids';
import { claimStore } from '#store/claims';
import { eventStore } from '#store/events';
import { groupItem } from '#store/groups';
import { keys } from '#store/keys';
import { paymentItem, paymentStore } from '#store/payments';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore, payorStore } from '#store/payors';
import { DynamoTransactionStore, transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { group as groupRecord, makePayor, payment as paymentRecord } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

/** Cut-offs every minute: the notices of a charge approved now are minutes ahead. */
const SCHEDULE = { periodSeconds: 60, offsetSeconds: 0 };

let table: TestTable;
let sandbox: SandboxProcessor;
let merchants = 0;
beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
  useProcessor(sandbox);
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A merchant of its own for each test (the test clock moves a merchant's notices). */
async function newMerchant(): Promise<string> {
  merchants++;
  const merchant: Merchant = {
    merchantId: `323700000${String(merchants).padStart(2, '0')}`,
    shortId: `237000${String(merchants).padStart(2, '0')}`,
    name: `Springfield ${merchants}`,
  };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  return merchant.merchantId;
}

/** An approved $30 card sale of a new payor whose card behaves as `profile`: its ids. */
async function approvedCardSale(merchantId: string, profile: string) {
  const { payor, method } = makePayor(merchantId, { email: 'payor@example.com' }, profile);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const request = saleRequest(merchantId, `${payor.payorId}/${method.savedPaymentMethodId}`, 3000);
  expect(await runSale(request, new Date())).toMatchObject({ status: 'Approved' });
  return {
    transactionId: request.transactionId,
    payorId: payor.payorId,
    methodId: method.savedPaymentMethodId,
  };
}

const saleOf = async (transactionId: string) => (await transactionStore().find(transactionId))!;
const backstop = () => runNoticeBackstop(new Date(), Date.now() + 30_000);
const eventsOf = async (merchantId: string, objectId: string): Promise<ServiceEvent[]> =>
  (await eventStore().page(merchantId, { objectId }, 100)).events;
/** An hour from now: the sale has settled (a refund, not a void). */
const later = () => new Date(Date.now() + 3_600_000);

it('the fraudulent test card is disputed at its 1st cut-off and lost at its 3rd, each notice applied once by 8 backstop runs at once; refund and void refused, the method revoked', async () => {
  const mid = await newMerchant();
  const sale = await approvedCardSale(mid, 'dFRD');
  // Not due yet: the dispute opens at the 1st cut-off after settlement.
  await backstop();
  expect((await saleOf(sale.transactionId)).transaction.dispute).toBeUndefined();

  expect(await sandbox.noticesNow({ merchantId: mid })).toEqual({ broughtForward: 1 });
  const runs = await Promise.all(Array.from({ length: 8 }, () => backstop()));
  expect(runs.reduce((n, r) => n + r.listed.applied, 0)).toBe(1);
  const opened = await saleOf(sale.transactionId);
  expect(opened.transaction.dispute).toMatchObject({
    transactionId: sale.transactionId,
    status: 'needs_response',
    reason: 'fraudulent',
    amount: 30,
  });
  const disputeId = opened.transaction.dispute!.disputeId;
  expect(await getDispute(mid, disputeId)).toEqual(opened.transaction.dispute);
  expect(transactionView(opened.transaction, opened.refunds, later()).availableRefundAmount).toBe(0);

  // Refused, naming the dispute; nothing written.
  await expect(refundSale(mid, sale.transactionId, 1000, crypto.randomUUID(), later())).rejects.toThrow(
    `transaction ${sale.transactionId} is disputed (dispute ${disputeId}, needs_response, fraudulent)`,
  );
  await expect(voidSale(mid, sale.transactionId, new Date())).rejects.toThrow(`dispute ${disputeId}`);
  const after = await saleOf(sale.transactionId);
  expect(after.refunds).toEqual([]);
  expect(after.transaction).toMatchObject({ refundedCents: 0, status: 'Approved' });
  expect(after.transaction.voidingAt).toBeUndefined();

  // Fraud revokes the card's method, announced once.
  const found = await payorStore().find(sale.payorId, mid);
  expect(found?.methods.find((m) => m.savedPaymentMethodId === sale.methodId)?.status).toBe('revoked');
  expect(
    (await eventsOf(mid, sale.methodId)).filter((e) => e.type === 'payment_method.revoked'),
  ).toHaveLength(1);

  // The 3rd cut-off: lost. Applied once however often the backstop lists it.
  expect(await sandbox.noticesNow({ merchantId: mid })).toEqual({ broughtForward: 1 });
  expect((await backstop()).listed.applied).toBe(1);
  expect((await backstop()).listed.applied).toBe(0);
  const lost = await getDispute(mid, disputeId);
  expect(lost).toMatchObject({ status: 'lost', reason: 'fraudulent', closedAt: expect.any(String) });
  expect(lost.evidenceDueBy).toBeUndefined();
  expect((await saleOf(sale.transactionId)).transaction.dispute).toEqual(lost);
  expect((await eventsOf(mid, disputeId)).map((e) => [e.type, e.sequence]).sort()).toEqual([
    ['dispute.closed', 2],
    ['dispute.created', 1],
  ]);
  // Lost: the cardholder has the money back; nothing to refund.
  await expect(refundSale(mid, sale.transactionId, 1000, crypto.randomUUID(), later())).rejects.toThrow(
    'the dispute lost',
  );
});

it('the product_not_received test card is only flagged (its method stays active) and won at its 3rd cut-off; then it can be refunded again', async () => {
  const mid = await newMerchant();
  const sale = await approvedCardSale(mid, 'dPNR');
  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  const { transaction } = await saleOf(sale.transactionId);
  expect(transaction.dispute).toMatchObject({ status: 'needs_response', reason: 'product_not_received' });
  const found = await payorStore().find(sale.payorId, mid);
  expect(found?.methods.find((m) => m.savedPaymentMethodId === sale.methodId)?.status ?? 'active').toBe(
    'active',
  );

  await sandbox.noticesNow({ merchantId: mid });
  await backstop();
  const won = await saleOf(sale.transactionId);
  expect(won.transaction.dispute).toMatchObject({ status: 'won', closedAt: expect.any(String) });
  expect(transactionView(won.transaction, won.refunds, later()).availableRefundAmount).toBe(30);
  // Listed newest first; the status filter keeps the won ones.
  expect((await listDisputes(mid, { status: 'won' })).items.map((d) => d.transactionId)).toEqual([
    sale.transactionId,
  ]);
  expect((await listDisputes(mid, { status: 'needs_response' })).items).toEqual([]);
});

it('the disputes list pages newest first with tokens of this merchant and filter only', async () => {
  const mid = await newMerchant();
  const sales = [];
  for (let i = 0; i < 3; i++) {
    sales.push((await approvedCardSale(mid, 'dPNR')).transactionId);
    await sandbox.noticesNow({ merchantId: mid });
    await backstop();
  }
  const first = await listDisputes(mid, { pageSize: '2' });
  expect(first.items.map((d) => d.transactionId)).toEqual([sales[2], sales[1]]);
  const second = await listDisputes(mid, { pageToken: first.meta.nextPageToken! });
  expect(second.items.map((d) => d.transactionId)).toEqual([sales[0]]);
  expect(second.meta.nextPageToken).toBeUndefined();
  await expect(listDisputes(mid, { pageToken: first.meta.nextPageToken!, status: 'won' })).rejects.toThrow(
    'pageToken is not a token of this list',
  );
  // Another merchant's dispute is not found here.
  await expect(getDispute(await newMerchant(), first.items[0]!.disputeId)).rejects.toThrow('not found');
});

it('defect: a disputes page that holds the last disputes exactly (as many as pageSize) carries a nextPageToken to an empty page (the token is absent on the last page)', async () => {
  const mid = await newMerchant();
  for (let i = 0; i < 2; i++) {
    await approvedCardSale(mid, 'dPNR');
    await sandbox.noticesNow({ merchantId: mid });
    await backstop();
  }
  const page = await listDisputes(mid, { pageSize: '2' });
  expect(page.items).toHaveLength(2);
  const next = page.meta.nextPageToken
    ? await listDisputes(mid, { pageToken: page.meta.nextPageToken })
    : undefined;
  expect({ nextPageToken: page.meta.nextPageToken, nextPageItems: next?.items.length }).toEqual({
    nextPageToken: undefined,
    nextPageItems: undefined,
  });
});

/** A dispute notice of the sale's charge, as a processor's webhook would bring it. */
async function disputeNotice(
  transactionId: string,
  over: Record<string, unknown>,
  key = `sale:${transactionId}`,
): Promise<ProcessorNotice> {
  const { transaction } = await saleOf(transactionId);
  return {
    noticeId: `n_${crypto.randomUUID()}`,
    merchantId: transaction.merchantId,
    objectId: `dp_${transactionId}`,
    sequence: 1,
    occurredAt: new Date().toISOString(),
    kind: 'dispute_opened',
    charge: {
      processorTransactionId: transaction.processorTransactionId!,
      idempotencyKey: key,
    },
    disputeId: `dp_${transactionId}`,
    status: 'needs_response',
    reason: 'general',
    amountCents: 3000,
    ...over,
  } as ProcessorNotice;
}

it('a late dispute notice never moves a dispute back, and none applies after it closed', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const review = await disputeNotice(transactionId, {
    kind: 'dispute_updated',
    sequence: 2,
    status: 'under_review',
  });
  expect(await applyNotice(review, new Date())).toEqual({ outcome: 'applied' });
  // The opening, older, arrives after: stale.
  expect((await applyNotice(await disputeNotice(transactionId, { sequence: 1 }), new Date())).outcome).toBe(
    'stale',
  );
  expect((await saleOf(transactionId)).transaction.dispute?.status).toBe('under_review');
  const closed = await disputeNotice(transactionId, { kind: 'dispute_closed', sequence: 3, status: 'won' });
  expect(await applyNotice(closed, new Date())).toEqual({ outcome: 'applied' });
  expect(await applyNotice(closed, new Date())).toEqual({ outcome: 'applied_before' });
  const reopened = await disputeNotice(transactionId, {
    kind: 'dispute_updated',
    sequence: 4,
    status: 'under_review',
  });
  expect((await applyNotice(reopened, new Date())).outcome).toBe('stale');
  const disputeId = disputeIdOf(mid, `dp_${transactionId}`);
  expect(await getDispute(mid, disputeId)).toMatchObject({ status: 'won' });
  // Created by the first notice applied (an update), closed once.
  expect((await eventsOf(mid, disputeId)).map((e) => e.type).sort()).toEqual([
    'dispute.closed',
    'dispute.created',
  ]);
});

it('defect: a later dispute notice that changed nothing the dispute shows announced dispute.updated (Stripe: an inquiry going under review, evidence edited); it is applied, announced by nothing, and the next change is numbered on without a gap', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const evidenceDueBy = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const first = await disputeNotice(transactionId, { status: 'inquiry', evidenceDueBy });
  expect(await applyNotice(first, new Date())).toEqual({ outcome: 'applied' });
  const same = await disputeNotice(transactionId, {
    kind: 'dispute_updated',
    sequence: 2,
    status: 'inquiry',
    evidenceDueBy,
  });
  expect(await applyNotice(same, new Date())).toEqual({ outcome: 'applied' });
  expect(await applyNotice(same, new Date())).toEqual({ outcome: 'applied_before' });
  const closed = await disputeNotice(transactionId, { kind: 'dispute_closed', sequence: 3, status: 'won' });
  expect(await applyNotice(closed, new Date())).toEqual({ outcome: 'applied' });
  const disputeId = disputeIdOf(mid, `dp_${transactionId}`);
  expect((await eventsOf(mid, disputeId)).map((e) => [e.type, e.sequence]).sort()).toEqual([
    ['dispute.closed', 2],
    ['dispute.created', 1],
  ]);
});

it('Defect: a sale whose first dispute was lost could be refunded once a later dispute of it was won (the sale shows its latest dispute only): the cardholder was paid twice', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const first = { disputeId: `dp_a_${transactionId}`, objectId: `dp_a_${transactionId}` };
  const second = { disputeId: `dp_b_${transactionId}`, objectId: `dp_b_${transactionId}` };
  for (const notice of [
    { ...first, occurredAt: at(0) },
    { ...first, kind: 'dispute_closed', sequence: 2, status: 'lost', occurredAt: at(1) },
    { ...second, occurredAt: at(2) },
    { ...second, kind: 'dispute_closed', sequence: 2, status: 'won', occurredAt: at(3) },
  ])
    expect(await applyNotice(await disputeNotice(transactionId, notice), new Date())).toEqual({
      outcome: 'applied',
    });
  const { transaction: read, refunds } = await saleOf(transactionId);
  // The sale shows the later dispute, won; the lost one still stands.
  expect(read.dispute).toMatchObject({ status: 'won' });
  expect(transactionView(read, refunds, later()).availableRefundAmount).toBe(0);
  const refund = {
    refundId: crypto.randomUUID(),
    transactionId,
    amountCents: 500,
    status: 'Pending' as const,
    date: new Date().toISOString(),
  };
  expect(await transactionStore().reserveRefund(read, refund)).toBe(false);
  expect(await transactionStore().reserveVoid(transactionId, new Date().toISOString())).toBe(false);
  await expect(refundSale(mid, transactionId, 500, crypto.randomUUID(), later())).rejects.toThrow(
    BadRequestError,
  );
});

it('a refund reserved on a sale read before its dispute opened is refused by the reservation', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const { transaction: read } = await saleOf(transactionId);
  expect(await applyNotice(await disputeNotice(transactionId, {}), new Date())).toEqual({
    outcome: 'applied',
  });
  const refund = {
    refundId: crypto.randomUUID(),
    transactionId,
    amountCents: 500,
    status: 'Pending' as const,
    date: new Date().toISOString(),
  };
  expect(await transactionStore().reserveRefund(read, refund)).toBe(false);
  expect(await transactionStore().reserveVoid(transactionId, new Date().toISOString())).toBe(false);
  expect((await saleOf(transactionId)).refunds).toEqual([]);
});

it('defect: a refund of the transactions API reserved before a crash, its sale disputed before the sweeper ran, was sent by the sweeper (the cardholder paid twice); it is refused unsent, Failed naming the dispute, its amount given back', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const refundId = crypto.randomUUID();
  // The request dies right after its reservation, before anything else.
  const { transaction: read } = await saleOf(transactionId);
  const pending = {
    refundId,
    transactionId,
    amountCents: 1000,
    status: 'Pending' as const,
    date: later().toISOString(),
  };
  expect(await transactionStore().reserveRefund(read, pending)).toBe(true);
  const refunds = jest.spyOn(sandbox, 'refund');
  // The cardholder disputes the charge before the sweeper's run.
  expect(await applyNotice(await disputeNotice(transactionId, {}), new Date())).toEqual({
    outcome: 'applied',
  });
  const report = await sweep(new Date(later().getTime() + 60_000), { olderThanSeconds: 30 });
  expect(report.settled).toContainEqual(
    expect.objectContaining({ kind: 'refund', refundId, result: 'Failed' }),
  );
  expect(refunds).not.toHaveBeenCalled();
  refunds.mockRestore();
  const after = await saleOf(transactionId);
  expect(after.refunds).toEqual([
    expect.objectContaining({
      refundId,
      status: 'Failed',
      responseCode: '400',
      responseMessage: expect.stringContaining(
        `is disputed (dispute ${after.transaction.dispute!.disputeId}`,
      ),
    }),
  ]);
  expect(after.transaction.refundedCents).toBe(0);
  // Announced as any refund of the transactions API that failed.
  expect((await eventsOf(mid, refundId)).map((e) => e.type)).toEqual(['refund.failed']);
});

it('a refund of the transactions API the processor made before a crash is replayed by the sweeper and recorded Completed, its sale disputed since or not', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const refundId = crypto.randomUUID();
  // The processor refunds; the answer is lost with the request.
  const refunds = jest.spyOn(sandbox, 'refund');
  refunds.mockImplementationOnce(async (request) => {
    await SandboxProcessor.prototype.refund.call(sandbox, request);
    throw new Error('simulated crash after the refund was made');
  });
  await expect(refundSale(mid, transactionId, 1000, refundId, later())).rejects.toThrow('simulated crash');
  refunds.mockRestore();
  expect(await applyNotice(await disputeNotice(transactionId, {}), new Date())).toEqual({
    outcome: 'applied',
  });
  const report = await sweep(new Date(later().getTime() + 60_000), { olderThanSeconds: 30 });
  expect(report.settled).toContainEqual(
    expect.objectContaining({ kind: 'refund', refundId, result: 'Completed' }),
  );
  const after = await saleOf(transactionId);
  expect(after.transaction.refundedCents).toBe(1000);
  expect((await sandbox.ledger('REFUND', processorKeys.refund(refundId)))?.calls).toBe(2);
});

it('a dispute notice read while its sale was Approved and written after the sale was voided changes nothing', async () => {
  const mid = await newMerchant();
  const { transactionId } = await approvedCardSale(mid, 'ok');
  const notice = await disputeNotice(transactionId, {});
  // The sale is read Approved; it is voided before the dispute is written.
  const find = DynamoTransactionStore.prototype.find;
  jest.spyOn(DynamoTransactionStore.prototype, 'find').mockImplementationOnce(async function (
    this: DynamoTransactionStore,
    id: string,
  ) {
    const read = await find.call(this, id);
    // As the void's answer writes it (the sale's cut-off may be inside the void margin by now).
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.transaction(transactionId),
        UpdateExpression: 'SET #status = :voided',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':voided': 'Voided' },
      }),
    );
    return read;
  });
  try {
    expect(await applyNotice(notice, new Date())).toMatchObject({ outcome: 'skipped' });
  } finally {
    jest.restoreAllMocks();
  }
  const { transaction } = await saleOf(transactionId);
  expect(transaction.status).toBe('Voided');
  expect(transaction.dispute).toBeUndefined();
  expect(await listDisputes(mid, {})).toMatchObject({ items: [] });
});

it(
  'Defect: a dispute of a card sale voided at a processor whose void is a refund (Stripe: the charge ' +
    'moved money and the void gave it back) was dropped as "no charge to dispute"; on the sandbox, ' +
    'whose void moves no money, it still is',
  async () => {
    // The sandbox with Stripe's kind of void: every call is the sandbox's.
    const refunding = new Proxy(sandbox, {
      get: (target, name) => (name === 'voidIsRefund' ? true : Reflect.get(target, name, target)),
    });
    for (const [processor, applies] of [
      [sandbox, false],
      [refunding, true],
    ] as const) {
      useProcessor(processor);
      try {
        const mid = await newMerchant();
        const { transactionId } = await approvedCardSale(mid, 'ok');
        // Voided, as the void's answer writes it (this file's cut-offs, a minute apart, leave a
        // void no margin).
        await table.db.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: keys.transaction(transactionId),
            UpdateExpression: 'SET #status = :voided',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':voided': 'Voided' },
          }),
        );
        const notice = await disputeNotice(transactionId, {});
        expect(await applyNotice(notice, new Date())).toMatchObject({
          outcome: applies ? 'applied' : 'skipped',
        });
        const { transaction } = await saleOf(transactionId);
        expect(transaction.status).toBe('Voided');
        expect(transaction.dispute?.status).toBe(applies ? 'needs_response' : undefined);
        expect((await listDisputes(mid, {})).items).toHaveLength(applies ? 1 : 0);
      } finally {
        useProcessor(sandbox);
      }
    }
  },
);

it('a dispute of a bank debit is its unauthorized return: Returned R10, the method revoked', async () => {
  const mid = await newMerchant();
  const { payor, method } = makePayor(mid, {}, 'bank');
  const checking = { ...method, accountType: 'CHECKING' as const, maskedAccountNumber: '********6789' };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  const request = saleRequest(mid, `${payor.payorId}/${checking.savedPaymentMethodId}`, 4000);
  expect(await runSale(request, new Date())).toMatchObject({ status: 'Approved' });

  const notice = await disputeNotice(request.transactionId, { reason: 'fraudulent' });
  expect(await applyNotice(notice, new Date())).toEqual({ outcome: 'applied' });
  expect(await applyNotice(notice, new Date())).toEqual({ outcome: 'applied_before' });
  const { transaction } = await saleOf(request.transactionId);
  expect(transaction).toMatchObject({
    status: 'Returned',
    return: { code: 'R10', category: 'unauthorized' },
  });
  expect(transaction.dispute).toBeUndefined();
  const found = await payorStore().find(payor.payorId, mid);
  expect(found?.methods[0]?.status).toBe('revoked');
  expect((await listDisputes(mid, {})).items).toEqual([]);
});

/**
 * A processed group of two $30 card payments, each approved by its first charge (a sale of the
 * sandbox, recorded with its payment): the group's id and the first payment's ids.
 */
async function processedCardGroup(mid: string) {
  const paymentGroupId = newId();
  const summary = {
    ...emptyTotals(),
    approved: 2,
    approvedCents: 6000,
    processedAt: new Date().toISOString(),
  };
  const group = groupRecord({
    paymentGroupId,
    merchantId: mid,
    status: 'processed',
    paymentCount: 2,
    totalCents: 6000,
    processingSummary: summary,
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  const paid = [];
  for (let i = 0; i < 2; i++) {
    const { payor, method } = makePayor(mid, {}, 'ok');
    await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
    const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
    const paymentId = newId();
    const transactionId = attemptTransactionId(paymentId, 1);
    const processorKey = processorKeys.payment(paymentId);
    const request = saleRequest(mid, profileId, 3000, {
      transactionId,
      processorKey,
      paymentId,
      paymentGroupId,
    });
    const sale = await runSale(request, new Date());
    const auth = saleAuthResponse(transactionView(sale, [], new Date()));
    const payment = paymentRecord({
      paymentId,
      paymentGroupId,
      merchantId: mid,
      profileId,
      amountCents: 3000,
      authResponse: auth,
      attempts: [attemptOf(1, auth)],
      eventSeq: 1,
      lastUpdated: new Date().toISOString(),
    });
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: paymentItem(payment) }));
    paid.push({ paymentId, transactionId, processorKey });
  }
  return { paymentGroupId, ...paid[0]! };
}

it('a dispute of a scheduled payment’s card charge moves its group’s processingSummary once per dispute (disputed up, approved kept): 8 callers at once, its later notices, repeated passes; the report counts it the same', async () => {
  const mid = await newMerchant();
  const { paymentGroupId, paymentId, transactionId, processorKey } = await processedCardGroup(mid);
  const summaryOf = async () => summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);
  expect(await summaryOf()).toMatchObject({ approvedCount: 2, disputedCount: 0, disputedAmount: 0 });

  const notice = await disputeNotice(transactionId, {}, processorKey);
  const answers = await Promise.all(Array.from({ length: 8 }, () => applyNotice(notice, new Date())));
  expect(answers.map((a) => a.outcome).sort()).toEqual(['applied', ...Array(7).fill('applied_before')]);
  const moved = { approvedCount: 2, approvedAmount: 60, disputedCount: 1, disputedAmount: 30 };
  expect(await summaryOf()).toMatchObject(moved);
  const disputeId = disputeIdOf(mid, `dp_${transactionId}`);
  expect((await paymentStore().getPayment(paymentGroupId, paymentId))!).toMatchObject({
    disputeCounted: disputeId,
    dispute: { disputeId, status: 'needs_response' },
  });

  // Its later notices (under review, then lost) and the backstop's passes move nothing more.
  for (const [sequence, kind, status] of [
    [2, 'dispute_updated', 'under_review'],
    [3, 'dispute_closed', 'lost'],
  ] as const) {
    const next = {
      ...notice,
      noticeId: `n_${crypto.randomUUID()}`,
      sequence,
      kind,
      status,
    } as ProcessorNotice;
    expect(await applyNotice(next, new Date())).toEqual({ outcome: 'applied' });
  }
  expect(await runDueFollowUps(new Date(Date.now() + 60_000), 10)).toBe(0);
  expect(await summaryOf()).toMatchObject(moved);

  // The report counts what is: the same, with the dispute's status in the payment's row.
  const report = await groupReport(mid, paymentGroupId);
  expect(report.counts).toMatchObject({ payments: 2, approved: 2, disputed: 1, returned: 0 });
  expect(report.amounts).toMatchObject({ approved: 60, disputed: 30 });
});

/** An inquiry of the charge under `processorKey`, applied (counted), then closed won. */
async function inquiryWon(transactionId: string, processorKey: string): Promise<void> {
  const inquiry = await disputeNotice(transactionId, { status: 'inquiry' }, processorKey);
  expect(await applyNotice(inquiry, new Date())).toEqual({ outcome: 'applied' });
  const closed = {
    ...inquiry,
    noticeId: `n_${crypto.randomUUID()}`,
    sequence: 2,
    kind: 'dispute_closed',
    status: 'won',
  };
  expect(await applyNotice(closed as ProcessorNotice, new Date())).toEqual({ outcome: 'applied' });
}

/** A chargeback of the same charge, a dispute of its own (a second after the first), applied. */
async function chargedBack(transactionId: string, processorKey: string, amountCents: number): Promise<void> {
  const chargeback = await disputeNotice(
    transactionId,
    {
      objectId: `dp2_${transactionId}`,
      disputeId: `dp2_${transactionId}`,
      occurredAt: new Date(Date.now() + 1000).toISOString(),
      amountCents,
    },
    processorKey,
  );
  expect(await applyNotice(chargeback, new Date())).toEqual({ outcome: 'applied' });
}

it('a second dispute of a scheduled payment’s charge never counts the payment twice in its group’s processingSummary: the move is from the dispute counted before', async () => {
  const mid = await newMerchant();
  const { paymentGroupId, transactionId, processorKey } = await processedCardGroup(mid);
  const summaryOf = async () => summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);

  // An inquiry, closed without a chargeback; then the chargeback, a dispute of its own, for $20.
  await inquiryWon(transactionId, processorKey);
  expect(await summaryOf()).toMatchObject({ disputedCount: 1, disputedAmount: 30 });
  await chargedBack(transactionId, processorKey, 2000);
  expect(await runDueFollowUps(new Date(Date.now() + 60_000), 10)).toBe(0);

  // One payment disputed, for what its latest dispute disputes: as the report counts it.
  expect(await summaryOf()).toMatchObject({ approvedCount: 2, disputedCount: 1, disputedAmount: 20 });
  const report = await groupReport(mid, paymentGroupId);
  expect(report.counts).toMatchObject({ approved: 2, disputed: 1 });
  expect(report.amounts).toMatchObject({ disputed: 20 });
});

it("defect: a chargeback after a counted inquiry, applied while a retry round of the group counted its payments, left the payment out of the group's disputedCount and its sum below zero (the round counted the payment undisputed, the move then moved the sum only)", async () => {
  const mid = await newMerchant();
  const { paymentGroupId, transactionId, processorKey } = await processedCardGroup(mid);
  const summaryOf = async () => summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);
  const groupUpdate = (expression: string, values: Record<string, unknown>) =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.group(paymentGroupId),
        UpdateExpression: expression,
        ExpressionAttributeValues: values,
      }),
    );

  // An inquiry, counted, closed won.
  await inquiryWon(transactionId, processorKey);
  expect(await summaryOf()).toMatchObject({ disputedCount: 1, disputedAmount: 30 });

  // A retry round of the group (another payment's retry) charges: the chargeback's move waits.
  await groupUpdate('SET retryBound = :b', { ':b': '2031-03-02T10' });
  await chargedBack(transactionId, processorKey, 2000);
  // The round's batches count every payment as it stands (core/batches.ts); its end writes the
  // summary whole, and the round is over.
  const totals = emptyTotals();
  for (const p of await paymentStore().listPayments(paymentGroupId)) countOutcome(totals, p);
  const stored = (await claimStore().read(paymentGroupId))!.processingSummary!;
  await groupUpdate('SET processingSummary = :s REMOVE retryBound', { ':s': { ...stored, ...totals } });

  await runDueFollowUps(new Date(Date.now() + 60_000), 10);
  expect(await summaryOf()).toMatchObject({ approvedCount: 2, disputedCount: 1, disputedAmount: 20 });
  const report = await groupReport(mid, paymentGroupId);
  expect(report.counts).toMatchObject({ approved: 2, disputed: 1 });
  expect(report.amounts).toMatchObject({ disputed: 20 });
});

it('a dispute whose amount changed after it was counted moves the summary from the amount counted when a second dispute of the charge replaces it', async () => {
  const mid = await newMerchant();
  const { paymentGroupId, transactionId, processorKey } = await processedCardGroup(mid);
  const summaryOf = async () => summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);

  // An inquiry for $20, counted; the processor then disputes $25 of it (the summary stays at the
  // first, docs/product.md "Disputes"), and it closes won.
  const inquiry = await disputeNotice(transactionId, { status: 'inquiry', amountCents: 2000 }, processorKey);
  expect(await applyNotice(inquiry, new Date())).toEqual({ outcome: 'applied' });
  expect(await summaryOf()).toMatchObject({ disputedCount: 1, disputedAmount: 20 });
  const later = (sequence: number, over: Record<string, unknown>) =>
    ({ ...inquiry, noticeId: `n_${crypto.randomUUID()}`, sequence, ...over }) as ProcessorNotice;
  const changed = later(2, { kind: 'dispute_updated', amountCents: 2500 });
  expect(await applyNotice(changed, new Date())).toEqual({ outcome: 'applied' });
  const closed = later(3, { kind: 'dispute_closed', status: 'won', amountCents: 2500 });
  expect(await applyNotice(closed, new Date())).toEqual({ outcome: 'applied' });
  expect(await summaryOf()).toMatchObject({ disputedCount: 1, disputedAmount: 20 });

  // The chargeback, a dispute of its own, for $30: the summary counts it, and only it.
  await chargedBack(transactionId, processorKey, 3000);
  expect(await runDueFollowUps(new Date(Date.now() + 60_000), 10)).toBe(0);
  expect(await summaryOf()).toMatchObject({ approvedCount: 2, disputedCount: 1, disputedAmount: 30 });
  const report = await groupReport(mid, paymentGroupId);
  expect(report.counts).toMatchObject({ disputed: 1 });
  expect(report.amounts).toMatchObject({ disputed: 30 });
});

it('a sale on a method revoked by a fraud dispute is declined R2 saying the authorization was revoked, not that the network asks to contact the cardholder', async () => {
  const mid = await newMerchant();
  const { payor, method } = makePayor(mid, {}, 'ok');
  await new DynamoPayorStore(table.db, table.tableName).create(payor, { ...method, status: 'revoked' });
  const request = saleRequest(mid, `${payor.payorId}/${method.savedPaymentMethodId}`, 3000);
  const sale = await runSale(request, new Date());
  expect(sale).toMatchObject({ status: 'Declined', responseCode: 'R2' });
  expect(sale.responseMessage).toContain('revoked');
  expect(sale.responseMessage).not.toContain('contact the cardholder');
});

test.each(['returns', 'disputes'] as const)(
  'defect: a %s page token forged with a valid digest and an empty position reached DynamoDB as an empty start key (a 500): 400',
  async (list) => {
    const { listReturns } = await import('#core/returns');
    const MID = '32350000001';
    const scope = list === 'returns' ? `returns\n${MID}` : `disputes\n${MID}\n`;
    const payload = Buffer.from(JSON.stringify(['', 0, 0, 10])).toString('base64url');
    const digest = createHash('sha256').update(`${scope}\n${payload}`).digest('base64url').slice(0, 22);
    const pageToken = `${payload}.${digest}`;
    const listed = list === 'returns' ? listReturns(MID, { pageToken }) : listDisputes(MID, { pageToken });
    await expect(listed).rejects.toThrow(new BadRequestError('pageToken is not a token of this list'));
  },
);
