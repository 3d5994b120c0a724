/**
 * Defect "a receipt for a voided payment": the merchant voids an approved scheduled
 * payment before its settlement cut-off; the void is reserved on the sale (core/reversals.ts
 * voidSale: from then on it is finished "whatever the time", by a repeat or the sweeper), but the
 * processor does not answer this time (the caller gets 503). The cut-off passes and the group's
 * receipts are queued (core/receipts.ts queueReceipts): the sale still reads `Approved` (the void is
 * only reserved: `voidingAt`), so a receipt is queued and sent; then the sweeper finishes the void.
 * The payor holds a receipt ("your payment has been completed") for a payment that was voided and
 * never charged. docs/product.md: a receipt goes "for each approved payment not voided since".
 *
 * Against DynamoDB Local, the sandbox processor (its ledger in the test table) behind the fault
 * double, core/receipts.ts and core/outbox.ts; SES replaced by a recording mailer.
 */
import { voidSale } from '#core/reversals';
import { deliver } from '#core/outbox';
import { queueReceiptsPage } from '#core/receipts';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { useClock } from '#shared/clock';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { useMailer } from '#shared/mailer';
import { DynamoGroupStore } from '#store/groups';
import { DynamoPayorStore } from '#store/payors';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeGroup, makePayor } from '#support/fixtures/index';
import { FaultyProcessor } from '#support/processor-double';
import { chargeScheduledPayment } from '#support/sales';
import { newId } from '#shared/ids';

let table: TestTable;
let processor: FaultyProcessor;
const MERCHANT = '32350000001';
const T0 = Date.now();
/** Sales made now settle about 12 hours from now (a daily cut-off placed there). */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(T0 / 1000) + 43_200) % 86_400 };
const sent: { to: string; subject: string }[] = [];

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.EMAIL_SEND_RATE = '1000';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  processor = new FaultyProcessor(new SandboxProcessor(ddb(), table.tableName, SCHEDULE));
  useProcessor(processor);
  useMailer({
    send: async (to, email) => {
      sent.push({ to, subject: email.subject });
      return { messageId: `ses-${sent.length}` };
    },
  });
});
afterEach(() => {
  processor.clear();
  useClock(undefined);
});
afterAll(async () => {
  useProcessor(undefined);
  useMailer(undefined);
  await table.drop();
});

test('defect: a payment whose void was reserved before the cut-off (the processor did not answer; the sweeper finishes it) gets a receipt all the same', async () => {
  const email = `parent-${newId()}@example.com`;
  const { payor, method } = makePayor(MERCHANT, { email });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const { group, payments } = makeGroup(1, { merchantId: MERCHANT, scheduleDate: '2031-06-01', profileId });
  const payment = { ...payments[0]!, sendEmailReceipt: true };
  await new DynamoGroupStore(table.db, table.tableName).createGroup(group, [payment]);
  const txn = await chargeScheduledPayment(MERCHANT, profileId, payment);
  expect(txn.status).toBe('Approved');

  // The merchant voids it before the cut-off: reserved, but the processor does not answer.
  processor.failNext(`void:${txn.transactionId}`, 'unavailable-before');
  await expect(voidSale(MERCHANT, txn.transactionId, new Date())).rejects.toThrow(/did not answer/);
  expect((await transactionStore().find(txn.transactionId))?.transaction).toMatchObject({
    status: 'Approved',
    voidingAt: expect.any(String),
  });

  // The cut-off passes; the group's receipts are queued (EmitReceipts, one range).
  const after = Date.parse(txn.settlesAt!) + 60_000;
  useClock({ nowMs: () => after, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) });
  await queueReceiptsPage({
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    receiptRange: 0,
    receiptCursor: null,
    upTo: null,
    receiptsDone: false,
    receiptsQueued: 0,
  });

  // The sweeper finishes the reserved void (its call: voidSale on the reserved sale).
  expect((await voidSale(MERCHANT, txn.transactionId, new Date(after))).status).toBe('Voided');

  // The notifier takes whatever the outbox holds for the payment.
  await deliver({ outboxId: `receipt:${payment.paymentId}`, notReady: 0 });
  expect(sent.filter((s) => s.to === email).map((s) => s.subject)).toEqual([]);
});
