/**
 * A bank debit's clearing and return against DynamoDB Local (core/bank-notices.ts through
 * core/notices.ts, the one way in for every notice): a return applied once however often it
 * arrives; 8 callers at once with the same notice, one effect and every answer a success; a notice
 * that beats its sale held, then applied when tried again after the sale exists; a crash between
 * the notice's transaction and its follow-up, finished by the next pass over the follow-ups; a
 * returned payment moved into its group's processingSummary once (a crash in the move, repeated
 * passes, a retry round charging meanwhile), its payor e-mailed once; its authResponse left with
 * nothing to refund, and a payment a retry had recovered no longer counted recovered.
 */
import { PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deletePayment } from '#core/payments';
import { groupReport } from '#core/reports';
import { keys } from '#store/keys';
import { outboxStore } from '#store/outbox';
import { deleteMethod } from '#core/method-deletion';
import { merchantReturnRates } from '#core/return-rates';
import { runDueFollowUps } from '#core/notice-follow-ups';
import { addMethod } from '#core/payors';
import { createDueOccurrences, createSeries } from '#core/series';
import { applyNotice, receiveNotices, retryHeldNotices } from '#core/notices';
import type { ServiceEvent } from '#domain/events';
import { reattemptsWithin } from '#domain/retries';
import { attemptOf, paymentView, type Payment } from '#domain/groups';
import { emptyTotals, saleAuthResponse, summaryView } from '#domain/processing';
import { transactionView, type Transaction } from '#domain/transactions';
import { processorKeys } from '#domain/processor-keys';
import type { ProcessorNotice } from '#processor/processor';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { attemptTransactionId, newId } from '#shared/ids';
import { cardHistory } from '#store/card-history';
import { claimStore } from '#store/claims';
import { eventStore } from '#store/events';
import { groupItem } from '#store/groups';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { noticeStore } from '#store/notices';
import { paymentItem, paymentStore } from '#store/payments';
import { DynamoPayorStore, payorStore } from '#store/payors';
import { returnRateStore } from '#store/return-rates';
import { seriesStore } from '#store/series';
import { DynamoTransactionStore, transactionStore } from '#store/transactions';
import { CrashError, injectCrash, removeCrashes } from '#support/ddb-faults';
import { createTestTable, type TestTable } from '#support/ddb';
import {
  group as groupRecord,
  makeMethod,
  makePayor,
  payment as paymentRecord,
} from '#support/fixtures/index';
import { storedProfile } from '#support/sales';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const T0 = new Date('2031-03-02T10:00:00.000Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
});
afterEach(() => removeCrashes());
afterAll(() => table.drop());

/** A stored payor with a CHECKING account (its e-mail set): its ids. */
async function checkingPayor(): Promise<{ payorId: string; methodId: string; profileId: string }> {
  const { payor, method } = makePayor(MID, { email: 'payor@example.com' });
  const checking = { ...method, accountType: 'CHECKING' as const, maskedAccountNumber: '********6789' };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  return {
    payorId: payor.payorId,
    methodId: checking.savedPaymentMethodId,
    profileId: `${payor.payorId}/${checking.savedPaymentMethodId}`,
  };
}

/** An approved, uncleared debit of $25 on the profile (of a scheduled payment, with `paymentOf`). */
function debit(profileId: string, transactionId: string, paymentOf?: Payment): Transaction {
  const [payorId, savedPaymentMethodId] = profileId.split('/') as [string, string];
  return {
    transactionId,
    merchantId: MID,
    type: 'sale',
    status: 'Approved',
    responseCode: '00',
    responseMessage: 'Approved',
    amountCents: 2500,
    approvedCents: 2500,
    isDuplicate: false,
    profileId,
    payorId,
    savedPaymentMethodId,
    accountType: 'CHECKING',
    maskedAccountNumber: '********6789',
    processedAt: T0.toISOString(),
    settlesAt: later(3600).toISOString(),
    refundedCents: 0,
    refundCount: 0,
    cleared: false,
    ...(paymentOf && { paymentId: paymentOf.paymentId, paymentGroupId: paymentOf.paymentGroupId }),
  };
}

/** A sale of the transactions API, recorded as the sale path records it (announced). */
async function apiSale(profileId: string): Promise<Transaction> {
  return new DynamoTransactionStore(table.db, table.tableName).recordSale(debit(profileId, newId()));
}

/** A scheduled payment answered Approved by its first charge, and that sale. */
async function paidPayment(
  profileId: string,
  paymentGroupId = newId(),
): Promise<{ payment: Payment; sale: Transaction }> {
  const paymentId = newId();
  const sale = debit(profileId, attemptTransactionId(paymentId, 1));
  // As processing answers it: the sale's view at processing time.
  const auth = saleAuthResponse(transactionView(debit(profileId, sale.transactionId), [], T0));
  const payment = paymentRecord({
    paymentId,
    paymentGroupId,
    merchantId: MID,
    profileId,
    amountCents: 2500,
    authResponse: auth,
    attempts: [attemptOf(1, auth)],
    eventSeq: 1,
    lastUpdated: T0.toISOString(),
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: paymentItem(payment) }));
  const recorded = await new DynamoTransactionStore(table.db, table.tableName).recordSale(
    debit(profileId, sale.transactionId, payment),
  );
  return { payment, sale: recorded };
}

const returned = (
  sale: Transaction,
  code: string,
  key = processorKeys.sale(sale.transactionId),
): ProcessorNotice => ({
  noticeId: `ntc_${newId()}`,
  kind: 'returned',
  merchantId: MID,
  objectId: `sbx_${sale.transactionId}`,
  sequence: 2,
  occurredAt: later(60).toISOString(),
  charge: { processorTransactionId: `sbx_${sale.transactionId}`, idempotencyKey: key },
  code,
  returnedAt: later(60).toISOString(),
});

/** The merchant's events about one object (all pages). */
async function eventsOf(objectId: string): Promise<ServiceEvent[]> {
  return (await eventStore().page(MID, { objectId }, 100)).events;
}
const typesOf = async (objectId: string) => (await eventsOf(objectId)).map((e) => e.type).sort();

const methodOf = async (payorId: string, methodId: string) =>
  (await payorStore().find(payorId, MID))!.methods.find((m) => m.savedPaymentMethodId === methodId)!;

test('a return is applied once, however often it arrives: one change, one event', async () => {
  const { profileId } = await checkingPayor();
  const sale = await apiSale(profileId);
  const notice = returned(sale, 'R01');

  expect((await applyNotice(notice, later(70))).outcome).toBe('applied');
  expect((await applyNotice(notice, later(80))).outcome).toBe('applied_before');
  const again = await receiveNotices([notice, notice, notice], 'backstop', later(90));
  expect(again).toMatchObject({ applied: 0, applied_before: 3, held: 0, stale: 0, skipped: 0 });

  const stored = (await transactionStore().find(sale.transactionId))!.transaction;
  expect(stored).toMatchObject({
    status: 'Returned',
    return: {
      code: 'R01',
      reason: 'Insufficient funds',
      category: 'nsf',
      returnedAt: notice.kind === 'returned' && notice.returnedAt,
    },
    noticeSeq: 2,
    eventSeq: 2,
  });
  expect(await typesOf(sale.transactionId)).toEqual(['transaction.approved', 'transaction.returned']);
  const [event] = (await eventsOf(sale.transactionId)).filter((e) => e.type === 'transaction.returned');
  expect(event).toMatchObject({ sequence: 2, data: { status: 'Returned', availableRefundAmount: 0 } });

  // A late clearing after the return never moves the sale back: stale, marked, nothing changed.
  const clearing: ProcessorNotice = {
    ...notice,
    noticeId: `ntc_${newId()}`,
    kind: 'cleared',
    sequence: 3,
    clearedAt: later(100).toISOString(),
  } as ProcessorNotice;
  expect((await applyNotice(clearing, later(110))).outcome).toBe('stale');
  expect((await applyNotice(clearing, later(120))).outcome).toBe('applied_before');
  expect((await transactionStore().find(sale.transactionId))!.transaction).toMatchObject({
    status: 'Returned',
    cleared: false,
  });
});

test('defect: a returned debit stayed an approved charge in its account’s history, so a debit of the account after the return was not counted a reinitiation (Nacha: at most 2 in 180 days): the return makes it a declined one', async () => {
  const { profileId } = await checkingPayor();
  // An API sale on the saved account, with the key its history is kept under (core/sale.ts).
  const cardKey = `method:${profileId.split('/')[1]}`;
  const sale = await new DynamoTransactionStore(table.db, table.tableName).recordSale({
    ...debit(profileId, newId()),
    cardKey,
  });
  const ever = new Date(0).toISOString();
  expect(await cardHistory().since(MID, cardKey, ever)).toEqual([
    expect.objectContaining({ outcome: 'approved' }),
  ]);

  expect((await applyNotice(returned(sale, 'R01'), later(70))).outcome).toBe('applied');

  const history = await cardHistory().since(MID, cardKey, ever);
  expect(history).toEqual([expect.objectContaining({ outcome: 'declined', retry: false })]);
  // The account's next debit, a day later, is a reinitiation of the returned one.
  const nextAt = Date.parse(history[0]!.at) + 86_400_000;
  const next = { at: new Date(nextAt).toISOString(), outcome: 'approved' as const, retry: false };
  expect(reattemptsWithin([...history, next], new Date(nextAt + 1000), 180 * 24)).toBe(1);
});

test('a returned bank debit counts in its merchant’s return rates by its category, once however often its notice is applied', async () => {
  const { profileId } = await checkingPayor();
  // Debits of today (the window of the rates is the last 60 days up to today).
  const today = () => ({ processedAt: new Date().toISOString() });
  const store = new DynamoTransactionStore(table.db, table.tableName);
  const [unauthorized, administrative, nsf] = await Promise.all(
    [1, 2, 3].map(() => store.recordSale({ ...debit(profileId, newId()), ...today() })),
  );
  // What GET /rest/merchants/{MID}/return-rates answers (get-return-rates.ts's body).
  const rates = () => merchantReturnRates(MID, new Date());
  const before = await rates();
  expect(before.debitCount).toBeGreaterThanOrEqual(3);

  const notices = [returned(unauthorized!, 'R10'), returned(administrative!, 'R02'), returned(nsf!, 'R01')];
  // The unauthorized return from 8 callers at once, every notice again after.
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      receiveNotices([notices[0]!], i % 2 ? 'webhook' : 'backstop', later(70)),
    ),
  );
  expect(await receiveNotices(notices, 'webhook', later(80))).toMatchObject({
    applied: 2,
    applied_before: 1,
  });
  expect(await receiveNotices(notices, 'backstop', later(90))).toMatchObject({
    applied: 0,
    applied_before: 3,
  });

  const after = await rates();
  expect(after.debitCount).toBe(before.debitCount);
  expect(after.unauthorized.count).toBe(before.unauthorized.count + 1);
  expect(after.administrative.count).toBe(before.administrative.count + 1);
  expect(after.overall.count).toBe(before.overall.count + 3);
  // The merchant is marked for the return-rates job to recompute its status within the hour.
  expect((await returnRateStore().changed(1000)).map((m) => m.merchantId)).toContain(MID);
});

/** A weekly series of the merchant starting in 20 days, a payment on each profile ($10, $11...). */
const weeklySeries = (profileIds: readonly string[]) =>
  createSeries(
    {
      timeZone: 'America/New_York',
      localHour: 12,
      startDate: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
      frequency: 'weekly',
      interval: 1,
      count: 3,
      noticeDays: 0,
      locationId: 1,
      payments: profileIds.map((profileId, i) => ({ profileId, amount: 10 + i })),
    },
    MERCHANT,
    new Date(),
  );

test('8 callers at once with the same unauthorized return: one effect, every answer a success', async () => {
  const { payorId, methodId, profileId } = await checkingPayor();
  const { payment, sale } = await paidPayment(profileId);
  // A series charging the method twice, and another payor's card once.
  const other = await storedProfile(table, MID);
  const series = await weeklySeries([profileId, other, profileId]);
  const notice = returned(sale, 'R10', processorKeys.payment(payment.paymentId));

  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => receiveNotices([notice], i % 2 ? 'webhook' : 'backstop', later(70))),
  );
  // Every caller's notice applied, by it or by another: none held, none failed.
  for (const counts of answers) {
    expect(counts.held + counts.skipped + counts.stale + counts.givenUp).toBe(0);
    expect(counts.applied + counts.applied_before).toBe(1);
  }
  expect(answers.reduce((n, c) => n + c.applied, 0)).toBe(1);

  // The sale, the payment's authResponse and its attempt Returned, announced once.
  expect((await transactionStore().find(sale.transactionId))!.transaction.status).toBe('Returned');
  const after = (await paymentStore().getPayment(payment.paymentGroupId, payment.paymentId))!;
  expect(after.authResponse).toMatchObject({
    status: 'Returned',
    return: { code: 'R10', category: 'unauthorized' },
  });
  expect(after.attempts).toMatchObject([{ status: 'Returned', return: { code: 'R10' } }]);
  expect(after.eventSeq).toBe(2);
  expect(await typesOf(payment.paymentId)).toEqual(['payment.returned']);
  // A scheduled payment's sale is announced by its payment, not as a transaction.
  expect(await typesOf(sale.transactionId)).toEqual([]);

  // The follow-up revoked the method once, announced once; none is left.
  expect((await methodOf(payorId, methodId)).status).toBe('revoked');
  expect(await typesOf(methodId)).toEqual(['payment_method.revoked']);
  expect(await noticeStore().followUp(notice.noticeId)).toBeUndefined();

  // Its payments in the series suspended, in one announced write; the other payor's goes on.
  const payments = await seriesStore().payments(series.seriesId);
  expect(payments.map((p) => p.status ?? 'active')).toEqual(['suspended', 'active', 'suspended']);
  expect(payments[0]).toMatchObject({ suspendedReason: 'authorization_revoked' });
  // Its total is what an occurrence charges: the suspended payments' amounts left out.
  const suspendedCents = payments[0]!.amountCents + payments[2]!.amountCents;
  expect(await seriesStore().get(series.seriesId)).toMatchObject({
    status: 'active',
    revision: series.revision + 1,
    totalCents: series.totalCents - suspendedCents,
  });
  expect(await typesOf(series.seriesId)).toEqual(['series.created', 'series.updated']);

  // The next occurrence's group leaves the suspended payments out; the series goes on.
  const report = await createDueOccurrences({
    horizon: new Date(Date.now() + 30 * 86_400_000),
    deadline: Date.now() + 60_000,
  });
  const created = report.created.find((c) => c.seriesId === series.seriesId)!;
  const charged = (await paymentStore().paymentsAfterId(created.paymentGroupId, null, 10))!;
  expect(charged.map((p) => p.profileId)).toEqual([other]);

  // Given a new method (the revoked one deleted with replaceWith), they are active again.
  const replacement = makeMethod(payorId, MID);
  await addMethod(replacement, false, new Date());
  await deleteMethod(payorId, methodId, MID, replacement.savedPaymentMethodId, new Date());
  const moved = await seriesStore().payments(series.seriesId);
  const replaced = `${payorId}/${replacement.savedPaymentMethodId}`;
  expect(moved.map((p) => [p.profileId, p.status ?? 'active'])).toEqual([
    [replaced, 'active'],
    [other, 'active'],
    [replaced, 'active'],
  ]);
  expect(moved[0]).not.toHaveProperty('suspendedReason');
  expect((await seriesStore().get(series.seriesId))!.totalCents).toBe(series.totalCents);
});

/** Runs `then` once, right after the first BatchGet of the container's client with this projection. */
function afterBatchGet(projection: string, then: () => Promise<unknown>): () => void {
  const name = `after-batch-get-${newId()}`;
  let done = false;
  type Input = { input: { RequestItems?: Record<string, { ProjectionExpression?: string }> } };
  const middleware = (next: (args: Input) => Promise<unknown>) => async (args: Input) => {
    const output = await next(args);
    const read = Object.values(args.input.RequestItems ?? {})[0];
    if (!done && read?.ProjectionExpression === projection) {
      done = true;
      await then();
    }
    return output;
  };
  ddb().middlewareStack.add(middleware as never, { step: 'initialize', name });
  return () => void ddb().middlewareStack.remove(name);
}

test('defect: a return that revoked a method while a large series naming it was being created left its payments unsuspended: the follow-up waits for the series to be committed, then suspends them', async () => {
  const { profileId } = await checkingPayor();
  const { payment, sale } = await paidPayment(profileId);
  const notice = returned(sale, 'R10', processorKeys.payment(payment.paymentId));
  // The return comes right after the create's fence read the method (not revoked yet): its
  // follow-up reads the uses of a series not committed yet.
  const stop = afterBatchGet('savedPaymentMethodId, deletion, #status', () =>
    receiveNotices([notice], 'webhook', later(70)),
  );
  // More payments than one transaction holds: written ahead, then committed.
  const series = await weeklySeries(Array.from({ length: 60 }, () => profileId)).finally(stop);
  expect((await methodOf(profileId.split('/')[0]!, profileId.split('/')[1]!)).status).toBe('revoked');

  // The follow-up's suspension waited for the series; the backstop's next pass finishes it.
  expect(await noticeStore().followUp(notice.noticeId)).toBeDefined();
  expect(await runDueFollowUps(later(90), 10)).toBeGreaterThanOrEqual(1);
  expect(await noticeStore().followUp(notice.noticeId)).toBeUndefined();
  const payments = await seriesStore().payments(series.seriesId);
  expect(payments).toHaveLength(60);
  expect(payments.filter((p) => p.status !== 'suspended')).toEqual([]);
  expect(await typesOf(series.seriesId)).toContain('series.updated');
});

/** The e-mails queued to a recipient, of a kind (the whole test table read: it is small). */
async function queuedEmails(recipient: string, kind: string, transactionId: string): Promise<number> {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      ConsistentRead: true,
      FilterExpression: 'recipient = :r AND kind = :k AND #d.transactionId = :t',
      ExpressionAttributeNames: { '#d': 'data' },
      ExpressionAttributeValues: { ':r': recipient, ':k': kind, ':t': transactionId },
    }),
  );
  return Items.length;
}

test('the same notice from the webhook and the backstop at once: 8 callers, half each way, every answer applied or applied before, one effect (one change, one event, one e-mail, the summary moved once)', async () => {
  const { payorId, methodId, profileId } = await checkingPayor();
  const paymentGroupId = await processedGroup();
  const { payment, sale } = await paidPayment(profileId, paymentGroupId);
  await paidPayment(profileId, paymentGroupId);
  // Account closed (administrative): the return closes the method and e-mails the payor.
  const notice = returned(sale, 'R02', processorKeys.payment(payment.paymentId));

  // Half as the processor's webhook brings it (its route verified it and hands its notices over),
  // half as the backstop's listing does, all at once.
  const sources = [
    'webhook',
    'backstop',
    'webhook',
    'backstop',
    'webhook',
    'backstop',
    'webhook',
    'backstop',
  ] as const;
  const answers = await Promise.all(sources.map((source) => receiveNotices([notice], source, later(70))));
  for (const counts of answers) {
    expect(counts.held + counts.skipped + counts.stale + counts.givenUp).toBe(0);
    expect(counts.applied + counts.applied_before).toBe(1);
  }
  expect(answers.reduce((n, c) => n + c.applied, 0)).toBe(1);

  // One state change: the sale and the payment Returned once (its event count moved by one).
  const { transaction } = (await transactionStore().find(sale.transactionId))!;
  expect(transaction).toMatchObject({
    status: 'Returned',
    return: { code: 'R02', category: 'administrative' },
  });
  const after = (await paymentStore().getPayment(paymentGroupId, payment.paymentId))!;
  expect(after).toMatchObject({ eventSeq: 2, authResponse: { status: 'Returned' } });
  // One outbound event of the return (and one of the method it closed).
  expect(await typesOf(payment.paymentId)).toEqual(['payment.returned']);
  expect((await methodOf(payorId, methodId)).status).toBe('closed');
  expect(await typesOf(methodId)).toEqual(['payment_method.updated']);
  // One e-mail that the debit was returned.
  expect(await queuedEmails('payor@example.com', 'debit-returned', sale.transactionId)).toBe(1);
  // The group's summary moved once: one payment returned, the other approved still.
  expect(await summaryOf(paymentGroupId)).toMatchObject({
    approvedCount: 1,
    approvedAmount: 25,
    returnedCount: 1,
    returnedAmount: 25,
  });
  expect(after.returnCounted).toBe(sale.transactionId);
  // Nothing left for the backstop's pass over follow-ups.
  expect(await noticeStore().followUp(notice.noticeId)).toBeUndefined();
  expect(await runDueFollowUps(later(90), 10)).toBe(0);
});

test('a notice before its sale is held, then applied when tried again after the sale exists', async () => {
  const { profileId } = await checkingPayor();
  const sale = debit(profileId, newId());
  const notice = returned(sale, 'R01');

  expect(await receiveNotices([notice], 'webhook', later(10))).toMatchObject({ held: 1, applied: 0 });
  expect(await noticeStore().held(notice.noticeId)).toMatchObject({
    tries: 1,
    reason: 'no sale is recorded for it yet',
  });
  expect(await noticeStore().isMarked(notice.noticeId)).toBe(false);

  // Tried again before the sale exists: still held, one more try.
  expect(await retryHeldNotices(later(60), 10)).toMatchObject({ held: 1 });
  expect(await noticeStore().held(notice.noticeId)).toMatchObject({ tries: 2 });

  await new DynamoTransactionStore(table.db, table.tableName).recordSale(sale);
  expect(await retryHeldNotices(later(600), 10)).toMatchObject({ applied: 1, held: 0 });
  expect(await noticeStore().held(notice.noticeId)).toBeUndefined();
  expect((await transactionStore().find(sale.transactionId))!.transaction).toMatchObject({
    status: 'Returned',
    return: { code: 'R01' },
  });
  expect(await retryHeldNotices(later(7200), 10)).toMatchObject({ applied: 0, applied_before: 0, held: 0 });
});

test('a crash between the notice’s transaction and its follow-up: the next pass finishes the follow-up, once', async () => {
  const { payorId, methodId, profileId } = await checkingPayor();
  const sale = await apiSale(profileId);
  const notice = returned(sale, 'R02');
  const isNoticeTransaction = (input: Record<string, unknown>) =>
    JSON.stringify(input.TransactItems).includes(`NOTICE#${notice.noticeId}`);
  const crash = injectCrash(ddb(), 'TransactWriteItemsCommand', 'after', isNoticeTransaction, { dies: true });
  await expect(applyNotice(notice, later(70))).rejects.toBeInstanceOf(CrashError);
  expect(crash.crashed).toBe(1);
  crash.remove(); // the restart

  // The transaction held: the sale Returned, its event, the mark and the follow-up written ahead;
  // the method not closed yet.
  expect((await transactionStore().find(sale.transactionId))!.transaction.status).toBe('Returned');
  expect(await noticeStore().isMarked(notice.noticeId)).toBe(true);
  expect(await noticeStore().followUp(notice.noticeId)).toMatchObject({
    work: { kind: 'method', action: 'close', savedPaymentMethodId: methodId, code: 'R02' },
  });
  expect((await methodOf(payorId, methodId)).status ?? 'active').toBe('active');

  // The notice again (a webhook's repeat) is met as applied before; the next pass does the work.
  expect((await applyNotice(notice, later(80))).outcome).toBe('applied_before');
  expect(await runDueFollowUps(later(90), 10)).toBeGreaterThanOrEqual(1);
  expect(await noticeStore().followUp(notice.noticeId)).toBeUndefined();
  expect((await methodOf(payorId, methodId)).status).toBe('closed');
  expect(await typesOf(methodId)).toEqual(['payment_method.updated']);
  expect(await runDueFollowUps(later(100), 10)).toBe(0);
  expect(await typesOf(methodId)).toEqual(['payment_method.updated']);
});

/**
 * A processed group (retries: 2, 24 hours apart) whose one payment's debit was paid, and the nsf
 * (R01) return notice of that debit, not applied yet.
 */
async function nsfReturnOfScheduledPayment(profileId: string) {
  const paymentGroupId = newId();
  const group = groupRecord({
    paymentGroupId,
    merchantId: MID,
    status: 'processed',
    retryPolicy: { maxRetries: 2, intervalHours: 24 },
    processingSummary: { ...emptyTotals(), approved: 1, processedAt: T0.toISOString() },
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  const { payment, sale } = await paidPayment(profileId, paymentGroupId);
  return {
    paymentGroupId,
    payment,
    sale,
    notice: returned(sale, 'R01', processorKeys.payment(payment.paymentId)),
  };
}

/** The retry follow-up of an nsf return written again, due at once (a crash before its removal). */
async function retryFollowUpAgain(
  notice: ProcessorNotice,
  paymentGroupId: string,
  paymentId: string,
  transactionId: string,
): Promise<void> {
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        pk: `NOTICE#${notice.noticeId}`,
        sk: 'FOLLOWUP',
        gsi2pk: 'NOTICEFX',
        gsi2sk: `${later(70).toISOString()}#${notice.noticeId}`,
        entity: 'notice-follow-up',
        noticeId: notice.noticeId,
        work: { kind: 'retry', merchantId: MID, paymentGroupId, paymentId, transactionId },
        dueAt: later(70).toISOString(),
      },
    }),
  );
}

test('an nsf return of a scheduled payment counts as a 51 decline: retried by its group’s policy, the group waits for the round', async () => {
  const { payorId, methodId, profileId } = await checkingPayor();
  const { paymentGroupId, payment, sale, notice } = await nsfReturnOfScheduledPayment(profileId);

  expect(await receiveNotices([notice, notice], 'webhook', later(70))).toMatchObject({
    applied: 1,
    applied_before: 1,
  });
  const after = (await paymentStore().getPayment(paymentGroupId, payment.paymentId))!;
  // Counted from the return (its returnedAt), at the first hourly slot 24 hours after it.
  expect(after.retry).toEqual({ status: 'scheduled', nextAttemptAt: '2031-03-03T11:00:00.000Z' });
  expect(after.authResponse).toMatchObject({ status: 'Returned', return: { code: 'R01', category: 'nsf' } });
  expect(await typesOf(payment.paymentId)).toEqual(['payment.retry_scheduled', 'payment.returned']);
  const waiting = await claimStore().read(paymentGroupId);
  expect(waiting).toMatchObject({ retrySlot: '2031-03-03T11', awaitingRetry: true, due: true });
  expect(waiting!.processingSummary!.retriesScheduled).toBe(1);
  // Returned until the retry answers: counted so in the summary, no longer approved.
  expect(waiting!.processingSummary).toMatchObject({ approved: 0, returned: 1, returnedCents: 2500 });
  // The method stays as it is.
  expect((await methodOf(payorId, methodId)).status ?? 'active').toBe('active');
  // A repeat of the follow-up (a crash before its removal) changes nothing.
  await retryFollowUpAgain(notice, paymentGroupId, payment.paymentId, sale.transactionId);
  expect(await runDueFollowUps(later(200), 10)).toBeGreaterThanOrEqual(1);
  expect(await typesOf(payment.paymentId)).toEqual(['payment.retry_scheduled', 'payment.returned']);
  expect((await claimStore().read(paymentGroupId))!.processingSummary!.retriesScheduled).toBe(1);
});

test('defect: a repeat of an nsf return’s retry follow-up that decided another retry time (the group’s policy changed since) counted the payment in retriesScheduled twice', async () => {
  const { profileId } = await checkingPayor();
  const { paymentGroupId, payment, sale, notice } = await nsfReturnOfScheduledPayment(profileId);
  expect(await receiveNotices([notice], 'webhook', later(70))).toMatchObject({ applied: 1 });
  expect((await claimStore().read(paymentGroupId))!.processingSummary!.retriesScheduled).toBe(1);

  // The follow-up again (a crash before its removal), after the group's interval changed.
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.group(paymentGroupId),
      UpdateExpression: 'SET retryPolicy.intervalHours = :h',
      ExpressionAttributeValues: { ':h': 48 },
    }),
  );
  await retryFollowUpAgain(notice, paymentGroupId, payment.paymentId, sale.transactionId);
  expect(await runDueFollowUps(later(200), 10)).toBeGreaterThanOrEqual(1);
  const after = (await paymentStore().getPayment(paymentGroupId, payment.paymentId))!;
  expect(after.retry).toMatchObject({ status: 'scheduled' });
  const summary = (await claimStore().read(paymentGroupId))!.processingSummary!;
  expect(summary.retriesScheduled).toBe(1);
  // The report, which counts the payments, agrees.
  expect((await groupReport(MID, paymentGroupId)).counts.retryScheduled).toBe(1);
});

/** A processed group whose summary counts two approved $25 debits; its id. */
async function processedGroup(): Promise<string> {
  const paymentGroupId = newId();
  const group = groupRecord({
    paymentGroupId,
    merchantId: MID,
    status: 'processed',
    paymentCount: 2,
    totalCents: 5000,
    processingSummary: { ...emptyTotals(), approved: 2, approvedCents: 5000, processedAt: T0.toISOString() },
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  return paymentGroupId;
}

const summaryOf = async (paymentGroupId: string) =>
  summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);

/** The follow-up item written again, as a crash before its removal leaves it. */
async function followUpAgain(noticeId: string, steps: object[], at: Date): Promise<void> {
  const [work, ...also] = steps;
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        pk: `NOTICE#${noticeId}`,
        sk: 'FOLLOWUP',
        gsi2pk: 'NOTICEFX',
        gsi2sk: `${at.toISOString()}#${noticeId}`,
        entity: 'notice-follow-up',
        noticeId,
        work,
        also,
        dueAt: at.toISOString(),
      },
    }),
  );
}

test('a return after clearing moves its group’s processingSummary once (returned up, approved down) through a crash in the move and repeated passes; the payor is e-mailed once', async () => {
  const { profileId } = await checkingPayor();
  const paymentGroupId = await processedGroup();
  const { payment, sale } = await paidPayment(profileId, paymentGroupId);
  await paidPayment(profileId, paymentGroupId);
  const key = processorKeys.payment(payment.paymentId);
  const cleared = {
    ...returned(sale, 'R10', key),
    kind: 'cleared',
    sequence: 1,
    clearedAt: later(30).toISOString(),
  } as ProcessorNotice;
  expect((await applyNotice(cleared, later(40))).outcome).toBe('applied');
  // A clearing moves no count.
  expect(await summaryOf(paymentGroupId)).toMatchObject({ approvedCount: 2, returnedCount: 0 });

  // The unauthorized return, late (after clearing, the group long processed): the process dies
  // right after the summary's move is written, before the e-mail and the follow-up's removal.
  const notice = returned(sale, 'R10', key);
  const isMove = (input: Record<string, unknown>) =>
    JSON.stringify(input.TransactItems).includes('returnCounted');
  const crash = injectCrash(ddb(), 'TransactWriteItemsCommand', 'after', isMove, { dies: true });
  // Applied (its transaction committed before the crash); the rest of its follow-up left.
  expect((await applyNotice(notice, later(70))).outcome).toBe('applied');
  expect(crash.crashed).toBe(1);
  crash.remove(); // the restart

  const moved = { approvedCount: 1, approvedAmount: 25, returnedCount: 1, returnedAmount: 25 };
  expect(await summaryOf(paymentGroupId)).toMatchObject(moved);
  expect(await outboxStore().get(`return:${sale.transactionId}`)).toBeUndefined();
  const left = (await noticeStore().followUp(notice.noticeId))!;
  const steps = [left.work, ...(left.also ?? [])];
  expect(steps.map((w) => w.kind)).toEqual(['method', 'summary', 'return-email']);

  // The backstop's passes finish it once; a repeat of the whole follow-up changes nothing.
  expect(await runDueFollowUps(later(90), 10)).toBeGreaterThanOrEqual(1);
  expect(await noticeStore().followUp(notice.noticeId)).toBeUndefined();
  await followUpAgain(notice.noticeId, steps, later(100));
  expect(await runDueFollowUps(later(110), 10)).toBeGreaterThanOrEqual(1);
  expect(await runDueFollowUps(later(120), 10)).toBe(0);
  expect(await summaryOf(paymentGroupId)).toMatchObject(moved);
  expect((await paymentStore().getPayment(paymentGroupId, payment.paymentId))!.returnCounted).toBe(
    sale.transactionId,
  );

  // One e-mail for the return, to the payor, saying what and why.
  expect(await outboxStore().get(`return:${sale.transactionId}`)).toMatchObject({
    kind: 'debit-returned',
    recipient: 'payor@example.com',
    status: 'pending',
    data: {
      merchantName: MERCHANT.name,
      amountCents: 2500,
      maskedAccountNumber: '********6789',
      code: 'R10',
      category: 'unauthorized',
      transactionId: sale.transactionId,
    },
  });

  // The report counts it as the summary does: returned, no longer approved.
  const report = await groupReport(MID, paymentGroupId);
  expect(report.counts).toMatchObject({ payments: 2, approved: 1, returned: 1 });
  expect(report.amounts).toMatchObject({ approved: 25, returned: 25 });
});

test('a return while a retry round of its group is charging: the summary’s move waits for the round’s end, then is made once', async () => {
  const { profileId } = await checkingPayor();
  const paymentGroupId = await processedGroup();
  const { payment, sale } = await paidPayment(profileId, paymentGroupId);
  const group = (expression: string, values?: Record<string, unknown>) =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.group(paymentGroupId),
        UpdateExpression: expression,
        ...(values && { ExpressionAttributeValues: values }),
      }),
    );
  await group('SET retryBound = :b', { ':b': '2031-03-02T10' }); // a round charging
  const notice = returned(sale, 'R08', processorKeys.payment(payment.paymentId));

  expect((await applyNotice(notice, later(70))).outcome).toBe('applied');
  // The round's count would overwrite a move made now: it waits; the e-mail went all the same.
  expect(await summaryOf(paymentGroupId)).toMatchObject({ approvedCount: 2, returnedCount: 0 });
  expect(await outboxStore().get(`return:${sale.transactionId}`)).toMatchObject({ kind: 'debit-returned' });
  expect(await runDueFollowUps(later(80), 10)).toBe(0);
  expect(await noticeStore().followUp(notice.noticeId)).toBeDefined();

  await group('REMOVE retryBound'); // the round ended (its count saw the payment unmoved: approved)
  expect(await runDueFollowUps(later(90), 10)).toBe(1);
  expect(await runDueFollowUps(later(100), 10)).toBe(0);
  expect(await summaryOf(paymentGroupId)).toMatchObject({
    approvedCount: 1,
    approvedAmount: 25,
    returnedCount: 1,
    returnedAmount: 25,
  });
});

test('deleting a payment whose nsf return scheduled its retry moves its group’s processingSummary from returned, never declined: the summary counts it skipped only, as the report does', async () => {
  const { profileId } = await checkingPayor();
  const paymentGroupId = newId();
  const group = groupRecord({
    paymentGroupId,
    merchantId: MID,
    status: 'processed',
    paymentCount: 1,
    totalCents: 2500,
    retryPolicy: { maxRetries: 2, intervalHours: 24 },
    processingSummary: { ...emptyTotals(), approved: 1, approvedCents: 2500, processedAt: T0.toISOString() },
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  const { payment, sale } = await paidPayment(profileId, paymentGroupId);
  const notice = returned(sale, 'R01', processorKeys.payment(payment.paymentId));
  expect(await applyNotice(notice, later(70))).toEqual({ outcome: 'applied' });
  expect((await paymentStore().getPayment(paymentGroupId, payment.paymentId))!.retry).toMatchObject({
    status: 'scheduled',
  });
  expect(await summaryOf(paymentGroupId)).toMatchObject({
    approvedCount: 0,
    returnedCount: 1,
    declinedCount: 0,
    retriesScheduled: 1,
  });

  await deletePayment(paymentGroupId, payment.paymentId, MID, later(120));
  expect(await summaryOf(paymentGroupId)).toMatchObject({
    approvedCount: 0,
    returnedCount: 0,
    returnedAmount: 0,
    declinedCount: 0,
    skippedCount: 1,
    retriesScheduled: 0,
  });
  const report = await groupReport(MID, paymentGroupId);
  expect(report.counts).toMatchObject({ returned: 0, declined: 0, deleted: 1 });
});

test("defect: a returned payment's authResponse kept availableRefundAmount at its approved amount beside status Returned (its sale said 0)", async () => {
  const { profileId } = await checkingPayor();
  const { payment, sale } = await paidPayment(profileId);
  expect(payment.authResponse).toMatchObject({ status: 'Approved', availableRefundAmount: 25 });

  const applied = await applyNotice(
    returned(sale, 'R01', processorKeys.payment(payment.paymentId)),
    later(70),
  );
  expect(applied.outcome).toBe('applied');

  const after = (await paymentStore().getPayment(payment.paymentGroupId, payment.paymentId))!;
  expect(paymentView(after).authResponse).toMatchObject({
    status: 'Returned',
    return: { code: 'R01' },
    availableRefundAmount: 0,
  });
});

test("defect: a payment a retry recovered whose debit was then returned nsf (and retried again) stayed in its group's recoveredCount and recoveredAmount; the report said 0", async () => {
  const { profileId } = await checkingPayor();
  const paymentGroupId = newId();
  const paymentId = newId();
  // Attempt 1 declined 51, attempt 2 (the retry round) approved: recovered, as the round counted it.
  const declinedAuth = {
    ...saleAuthResponse(
      transactionView(
        {
          ...debit(profileId, attemptTransactionId(paymentId, 1), { paymentId, paymentGroupId } as Payment),
          status: 'Declined',
          responseCode: '51',
          responseMessage: 'Insufficient funds',
          approvedCents: 0,
        },
        [],
        T0,
      ),
    ),
  };
  const sale = debit(profileId, attemptTransactionId(paymentId, 2), { paymentId, paymentGroupId } as Payment);
  const auth = saleAuthResponse(transactionView(sale, [], T0));
  const payment = paymentRecord({
    paymentId,
    paymentGroupId,
    merchantId: MID,
    profileId,
    amountCents: 2500,
    authResponse: auth,
    attempts: [attemptOf(1, declinedAuth), attemptOf(2, auth, 1)],
    retry: { status: 'succeeded' },
    eventSeq: 3,
    lastUpdated: T0.toISOString(),
  });
  const group = groupRecord({
    paymentGroupId,
    merchantId: MID,
    status: 'processed',
    paymentCount: 1,
    totalCents: 2500,
    retryPolicy: { maxRetries: 3, intervalHours: 24 },
    processingSummary: {
      ...emptyTotals(),
      approved: 1,
      approvedCents: 2500,
      recovered: 1,
      recoveredCents: 2500,
      processedAt: T0.toISOString(),
    },
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: paymentItem(payment) }));
  await new DynamoTransactionStore(table.db, table.tableName).recordSale(sale);

  const notice = returned(sale, 'R01', processorKeys.payment(paymentId, 2));
  expect((await applyNotice(notice, later(70))).outcome).toBe('applied');
  await runDueFollowUps(later(90), 10);

  const after = (await paymentStore().getPayment(paymentGroupId, paymentId))!;
  expect(after.authResponse).toMatchObject({ status: 'Returned' });
  expect(after.retry).toMatchObject({ status: 'scheduled' });
  const report = await groupReport(MID, paymentGroupId);
  const summary = summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);
  // docs/product.md "Returns": a returned payment leaves approvedCount ... and recoveredCount /
  // recoveredAmount when it was one of those. The report (which counts what is) agrees.
  expect(report.counts).toMatchObject({ approved: 0, returned: 1, recovered: 0 });
  expect({
    approvedCount: summary.approvedCount,
    returnedCount: summary.returnedCount,
    recoveredCount: summary.recoveredCount,
    recoveredAmount: summary.recoveredAmount,
  }).toEqual({ approvedCount: 0, returnedCount: 1, recoveredCount: 0, recoveredAmount: 0 });
});
