/**
 * Defect: a refund Stripe accepted and could not give back later (its status `failed`: the card
 * expired or was cancelled, lost or stolen) stayed Completed in the service: the cardholder never
 * got the money, the merchant believed it refunded, and the sale's refundable amount stayed
 * reduced. Stripe tells it by `charge.refund.updated`, `refund.updated` and `refund.failed`.
 *
 * End to end on the Stripe stand-in and DynamoDB Local: a card sale through the service's sale
 * path, refunded through its refund path, the refund failed at the stand-in (Stripe's
 * "asynchronous refund failure" test card, and the stand-in's helper), its events signed and
 * delivered to the service's webhook route (receiveProcessorWebhook), listed by the backstop again;
 * then reconciled against Stripe's activity.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyNotice, emptyCounts, retryHeldNotices, type NoticeCounts } from '#core/notices';
import { receiveProcessorWebhook } from '#core/processor-webhooks';
import { reconcile } from '#core/reconcile';
import { refundSale, voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import { voidOrRefundGroup } from '#core/void-or-refund';
import type { ServiceEvent } from '#domain/events';
import type { Payment } from '#domain/groups';
import { saleAuthResponse } from '#domain/processing';
import { processorKeys } from '#domain/processor-keys';
import { availableRefundCents, transactionView } from '#domain/transactions';
import { failRefund } from '#lib/local/stripe/refunds-api';
import { useProcessor } from '#processor/index';
import type { ProcessorNotice } from '#processor/processor';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { newId, transactionIdOf } from '#shared/ids';
import { eventStore } from '#store/events';
import { groupStore } from '#store/groups';
import { MerchantAdmin } from '#store/merchant-admin';
import { noticeStore } from '#store/notices';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { ReconciliationRecords } from '#store/reconciliation';
import { transactionStore } from '#store/transactions';
import { useTestClock, type TestClock } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeGroup, makePayor } from '#support/fixtures/index';
import { ACCOUNT, cardOf, MERCHANT, stripeOnStandIn, type StripeOnStandIn } from '#support/stripe-stand-in';

const T0 = '2031-10-06T15:00:00.000Z';
const SECRET = 'whsec_refundfailed0123456789abcdefgh';
const HOUR = 3_600_000;
/** Stripe's "asynchronous refund failure" test card: its refund begins succeeded, then fails. */
const REFUND_FAILS = '4000000000005126';

let table: TestTable;
let stripe: StripeOnStandIn;
let clock: TestClock;
let receiver: Server;
/** What each webhook the service received came to (its notices' outcomes), in order. */
const receipts: NoticeCounts[] = [];
/** False: the route is down (503), the events left for the backstop's listing. */
let routeUp = true;

beforeAll(async () => {
  clock = useTestClock(T0);
  table = await createTestTable();
  const file = join(mkdtempSync(join(tmpdir(), 'refund-failed-')), 'secret');
  writeFileSync(file, SECRET);
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    SERVICE_STAGE: 'dev',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    PROCESSOR_WEBHOOK_SECRET: `file:${file}`,
  });
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register({ merchantId: MERCHANT, name: 'Test' });
  // The service's webhook route, as the function answers it: 200 with what it came to, or 400.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!routeUp) return void res.writeHead(503).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'stripe-signature': String(req.headers['stripe-signature']) };
      receiveProcessorWebhook({ body, headers }, clock.now()).then(
        (receipt) => {
          receipts.push(receipt.notices);
          res.writeHead(200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const { port } = receiver.address() as AddressInfo;
  stripe = await stripeOnStandIn({
    standIn: { webhook: { url: `http://127.0.0.1:${port}/processor-events/stripe`, secret: SECRET } },
  });
  useProcessor(stripe.processor);
});
afterAll(async () => {
  useProcessor(undefined);
  useClock(undefined);
  delete process.env.PROCESSOR_WEBHOOK_SECRET;
  await stripe.close();
  await new Promise<void>((ok) => receiver.close(() => ok()));
  await table.drop();
});

/** A stored payor whose card (`number`) is vaulted at Stripe (the stand-in): its profile. */
async function stripeCardProfile(number: string): Promise<string> {
  const { payor, method } = makePayor(MERCHANT, { email: 'payor@example.com' });
  const { token } = await stripe.processor.tokenize(cardOf(number, payor.payorId));
  const card = { ...method, maskedAccountNumber: `************${number.slice(-4)}`, processorToken: token };
  await new DynamoPayorStore(table.db, table.tableName).create(payor, card);
  return `${payor.payorId}/${card.savedPaymentMethodId}`;
}

/** An approved card sale of $50 through the service's sale path (settled since, unless `settle` false). */
async function cardSale(number: string, settle = true) {
  const transactionId = newId();
  const sale = await runSale(
    {
      transactionId,
      processorKey: processorKeys.sale(transactionId),
      merchantId: MERCHANT,
      profileId: await stripeCardProfile(number),
      amountCents: 5000,
      allowPartial: false,
      missingMethod: 'reject',
    },
    clock.now(),
  );
  expect(sale.status).toBe('Approved');
  if (settle) clock.advance(2 * HOUR);
  return sale;
}

const found = async (transactionId: string) => (await transactionStore().find(transactionId))!;
const eventsOf = async (objectId: string): Promise<ServiceEvent[]> =>
  (await eventStore().page(MERCHANT, { objectId }, 100)).events.sort((a, b) => a.sequence - b.sequence);
/** The refund at the stand-in made under the service's key for `refundId`. */
const atStripe = (refundId: string) =>
  [...stripe.standIn.state.account(ACCOUNT).refunds.values()].find(
    (r) => r.metadata?.processor_key === processorKeys.refund(refundId),
  )!;

/** Every notice the backstop lists from an hour before now on, page after page. */
async function listed(): Promise<ProcessorNotice[]> {
  const notices: ProcessorNotice[] = [];
  let cursor: string | undefined = `next:${Math.floor(clock.nowMs() / 1000) - 3600}`;
  for (let more = true; more;) {
    const page = await stripe.processor.listNotices({ cursor, limit: 100 });
    notices.push(...page.notices);
    cursor = page.cursor;
    more = page.more;
  }
  return notices;
}

const sum = (counts: readonly NoticeCounts[]): NoticeCounts =>
  counts.reduce((all, c) => {
    for (const k of Object.keys(all) as (keyof NoticeCounts)[]) all[k] += c[k];
    return all;
  }, emptyCounts());

describe('Defect: a refund that failed at Stripe after it was accepted stayed Completed', () => {
  it('a refund of a sale failed later (its webhook): Failed with Stripe’s reason, its amount refundable again, refund.failed announced once; the listing changes nothing more; reconciled without a difference', async () => {
    const sale = await cardSale(REFUND_FAILS);
    const refundId = newId();
    const { refund } = await refundSale(MERCHANT, sale.transactionId, 2000, refundId, clock.now());
    // Stripe accepted it (`succeeded`): the money left the merchant; Completed meanwhile.
    expect(refund).toMatchObject({ status: 'Completed', responseCode: '00' });
    expect(availableRefundCents((await found(sale.transactionId)).transaction)).toBe(3000);

    // A day on, Stripe could not give it back: its events reach the webhook route.
    receipts.length = 0;
    clock.advance(stripe.standIn.state.refundChangesAfterSeconds * 1000 + 60_000);
    await stripe.standIn.tick();
    expect(atStripe(refundId)).toMatchObject({
      status: 'failed',
      failure_reason: 'expired_or_canceled_card',
    });
    // charge.refund.updated, refund.updated, refund.failed: one applied, the others change nothing.
    expect(sum(receipts)).toMatchObject({ applied: 1, held: 0, skipped: 0 });

    const after = await found(sale.transactionId);
    expect(after.refunds).toEqual([
      expect.objectContaining({
        refundId,
        status: 'Failed',
        responseMessage: expect.stringContaining('expired_or_canceled_card'),
      }),
    ]);
    expect(after.transaction).toMatchObject({ refundedCents: 0, refundCount: 0, failedRefundCount: 1 });
    expect(transactionView(after.transaction, after.refunds, clock.now())).toMatchObject({
      refundedAmount: 0,
      availableRefundAmount: 50,
      refundHistory: [expect.objectContaining({ refundId, status: 'Failed' })],
    });
    const events = await eventsOf(refundId);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([
      ['refund.completed', 1],
      ['refund.failed', 2],
    ]);
    expect(events[1]!.data).toMatchObject({ refundId, status: 'Failed', availableRefundAmount: 50 });

    // The backstop lists the same events: each applied once already.
    const again = (await listed()).filter((n) => n.objectId === atStripe(refundId).id);
    expect(again.map((n) => n.kind)).toEqual(['refund_failed', 'refund_failed', 'refund_failed']);
    for (const notice of again)
      expect((await applyNotice(notice, clock.now())).outcome).toBe('applied_before');
    expect((await eventsOf(refundId)).length).toBe(2);

    // Stripe's activity shows the refund not approved; the record is Failed: no difference.
    const report = await reconcile(
      { since: new Date(clock.nowMs() - 30 * HOUR).toISOString(), heal: false },
      {
        records: new ReconciliationRecords(table.db, table.tableName),
        processor: stripe.processor,
        sweep: async () => undefined,
      },
    );
    expect(report.differences).toEqual([]);
  });

  it('a refund Stripe accepted `pending` is Completed meanwhile (the money left the merchant); its later success changes nothing', async () => {
    const sale = await cardSale('4000000000007726');
    const refundId = newId();
    const { refund } = await refundSale(MERCHANT, sale.transactionId, 5000, refundId, clock.now());
    expect(atStripe(refundId)).toMatchObject({ status: 'pending' });
    expect(refund).toMatchObject({ status: 'Completed', responseCode: '00' });
    receipts.length = 0;
    clock.advance(stripe.standIn.state.refundChangesAfterSeconds * 1000 + 60_000);
    await stripe.standIn.tick();
    expect(atStripe(refundId)).toMatchObject({ status: 'succeeded' });
    expect(sum(receipts)).toMatchObject({ applied: 0, held: 0, skipped: 0, stale: 0 });
    expect((await found(sale.transactionId)).refunds).toEqual([
      expect.objectContaining({ refundId, status: 'Completed' }),
    ]);
  });

  it('a scheduled payment’s refund failed later: Failed on the payment’s voidOrRefundResponses too', async () => {
    const { group, payments } = makeGroup(1, {
      merchantId: MERCHANT,
      scheduleDate: '2031-10-06',
      amountOf: () => 50,
    });
    const profileId = await stripeCardProfile(REFUND_FAILS);
    const payment: Payment = { ...payments[0]!, profileId };
    await groupStore().createGroup({ ...group, status: 'processed' }, [payment]);
    const txn = await runSale(
      {
        transactionId: transactionIdOf(payment.paymentId),
        processorKey: processorKeys.payment(payment.paymentId),
        merchantId: MERCHANT,
        profileId,
        amountCents: 5000,
        allowPartial: false,
        missingMethod: 'reject',
        paymentId: payment.paymentId,
        paymentGroupId: group.paymentGroupId,
      },
      clock.now(),
    );
    expect(txn.status).toBe('Approved');
    const auth = saleAuthResponse(transactionView(txn, [], clock.now()));
    expect(await paymentStore().setAuthResponse(payment, auth, clock.now())).toBe(true);
    clock.advance(2 * HOUR);

    const reversal = await voidOrRefundGroup(
      group.paymentGroupId,
      MERCHANT,
      [payment.paymentId],
      clock.now(),
    );
    expect(reversal.outcomes).toEqual([expect.objectContaining({ outcome: 'refunded' })]);
    const [response] = (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!
      .voidOrRefundResponses!;
    expect(response).toMatchObject({ type: 'Refund', status: 'Completed' });

    receipts.length = 0;
    failRefund(
      stripe.standIn.state,
      stripe.standIn.state.account(ACCOUNT),
      atStripe(response!.transactionId).id,
      'lost_or_stolen_card',
    );
    await stripe.standIn.tick();
    expect(sum(receipts)).toMatchObject({ applied: 1, held: 0, skipped: 0 });

    const shown = (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!;
    expect(shown.voidOrRefundResponses).toEqual([
      expect.objectContaining({
        type: 'Refund',
        transactionId: response!.transactionId,
        status: 'Failed',
        responseMessage: expect.stringContaining('lost_or_stolen_card'),
      }),
    ]);
    const after = await found(txn.transactionId);
    expect(after.transaction).toMatchObject({ refundedCents: 0, refundCount: 0 });
    expect(after.refunds).toEqual([expect.objectContaining({ status: 'Failed' })]);
    expect((await eventsOf(response!.transactionId)).map((e) => e.type)).toEqual(['refund.failed']);
  });

  it('a failure of a refund the service has not recorded yet is held, and tried again when its record appears', async () => {
    const sale = await cardSale('4242424242424242');
    // Made at Stripe under a refund key whose record the service has not written (yet).
    const refundId = newId();
    const made = await stripe.processor.refund({
      idempotencyKey: processorKeys.refund(refundId),
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId!,
      amountCents: 1000,
    });
    expect(made.approved).toBe(true);
    receipts.length = 0;
    const events = failRefund(
      stripe.standIn.state,
      stripe.standIn.state.account(ACCOUNT),
      made.processorTransactionId,
    );
    await stripe.standIn.tick();
    expect(sum(receipts)).toMatchObject({ applied: 0, held: 3 });
    expect(await noticeStore().held(events[0]!.id)).toMatchObject({
      reason: expect.stringMatching(/no refund/),
    });
    expect((await found(sale.transactionId)).transaction).toMatchObject({ refundedCents: 0 });

    // Its record appears: the refund asked with that id meets Stripe's failed refund under its key
    // (Failed at once, its amount given back); the held notices, tried again, change nothing more.
    const { refund } = await refundSale(MERCHANT, sale.transactionId, 1000, refundId, clock.now());
    expect(refund).toMatchObject({ status: 'Failed' });
    clock.advance(HOUR);
    expect(await retryHeldNotices(clock.now(), 10)).toMatchObject({ stale: 3, held: 0, applied: 0 });
    expect(await noticeStore().held(events[0]!.id)).toBeUndefined();
    expect((await found(sale.transactionId)).transaction).toMatchObject({
      refundedCents: 0,
      refundCount: 0,
      failedRefundCount: 1,
    });
  });
  it('a held failure is applied once its refund is recorded Completed (the answer recorded after the webhook)', async () => {
    const sale = await cardSale('4242424242424242');
    const refundId = newId();
    const made = await stripe.processor.refund({
      idempotencyKey: processorKeys.refund(refundId),
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId!,
      amountCents: 1500,
    });
    receipts.length = 0;
    failRefund(stripe.standIn.state, stripe.standIn.state.account(ACCOUNT), made.processorTransactionId);
    await stripe.standIn.tick();
    expect(sum(receipts)).toMatchObject({ applied: 0, held: 3 });
    // The refund's record and Stripe's first answer (accepted), written as the refund path does.
    const pending = {
      refundId,
      transactionId: sale.transactionId,
      amountCents: 1500,
      status: 'Pending' as const,
      date: clock.now().toISOString(),
    };
    expect(await transactionStore().reserveRefund(sale, pending)).toBe(true);
    await transactionStore().finishRefund(
      pending,
      { status: 'Completed', responseCode: '00', responseMessage: 'Refund accepted' },
      MERCHANT,
    );
    clock.advance(HOUR);
    expect(await retryHeldNotices(clock.now(), 10)).toMatchObject({ applied: 1, stale: 2, held: 0 });
    const after = await found(sale.transactionId);
    expect(after.refunds).toEqual([expect.objectContaining({ refundId, status: 'Failed' })]);
    expect(after.transaction).toMatchObject({ refundedCents: 0, refundCount: 0, failedRefundCount: 1 });
    expect((await eventsOf(refundId)).map((e) => e.type)).toEqual(['refund.completed', 'refund.failed']);
  });

  it('the backstop’s listing alone applies it, once, under 8 callers of each of its 3 notices at once', async () => {
    const sale = await cardSale(REFUND_FAILS);
    const refundId = newId();
    await refundSale(MERCHANT, sale.transactionId, 5000, refundId, clock.now());
    routeUp = false;
    try {
      clock.advance(stripe.standIn.state.refundChangesAfterSeconds * 1000 + 60_000);
      await stripe.standIn.tick();
    } finally {
      routeUp = true;
    }
    const notices = (await listed()).filter((n) => n.objectId === atStripe(refundId).id);
    expect(notices).toHaveLength(3);
    const outcomes = await Promise.all(
      notices.flatMap((n) => Array.from({ length: 8 }, () => applyNotice(n, clock.now()))),
    );
    expect(outcomes.filter((o) => o.outcome === 'applied')).toHaveLength(1);
    const after = await found(sale.transactionId);
    expect(after.transaction).toMatchObject({ refundedCents: 0, refundCount: 0, failedRefundCount: 1 });
    expect((await eventsOf(refundId)).map((e) => e.type)).toEqual(['refund.completed', 'refund.failed']);
  });

  it('a void’s refund (a Stripe void is a refund) that failed is skipped, named in the log: the sale stays Voided', async () => {
    // On the hour: the cut-off (:30) is far enough for a void.
    clock.advance(HOUR - (clock.nowMs() % HOUR));
    const sale = await cardSale(REFUND_FAILS, false);
    expect(await voidSale(MERCHANT, sale.transactionId, clock.now())).toMatchObject({ status: 'Voided' });
    receipts.length = 0;
    clock.advance(stripe.standIn.state.refundChangesAfterSeconds * 1000 + 60_000);
    await stripe.standIn.tick();
    expect(sum(receipts)).toMatchObject({ applied: 0, held: 0, skipped: 3 });
    expect((await found(sale.transactionId)).transaction).toMatchObject({ status: 'Voided' });
  });
});
