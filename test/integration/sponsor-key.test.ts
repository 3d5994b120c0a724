/**
 * Defect "sponsorKey never appeared on payment records" (SPEC: a payor's sponsorKey, "optional
 * tracking code; appears on payment records"): it was kept and shown on the payor only. A
 * scheduled payment now carries its payor's key as it was when the payment was written (created,
 * or replaced by a PUT), and the sale that charges it carries the payment's.
 */
import { charge } from '#core/charge';
import { createGroup } from '#core/groups';
import { addPayment, updatePayment } from '#core/payments';
import { paymentView } from '#domain/groups';
import type { BatchState } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

const MERCHANT: Merchant = { merchantId: '32350000003', shortId: '23500003', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);
let table: TestTable;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  useProcessor(new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 86_400, offsetSeconds: 0 }));
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
});
afterAll(() => table.drop());

async function profile(sponsorKey?: string): Promise<string> {
  const { payor, method } = makePayor(MID, sponsorKey === undefined ? {} : { sponsorKey });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  return `${payor.payorId}/${method.savedPaymentMethodId}`;
}

test('defect: sponsorKey never appeared on payment records; a payment carries its payor key, and its sale the payment key', async () => {
  const [sponsored, plain] = [await profile('SPR-2026'), await profile()];
  const { group, payments } = await createGroup(
    {
      servicePayId: MID,
      scheduleDate: day(2),
      scheduleHour: 10,
      locationId: 1,
      payments: [
        { profileId: sponsored, amount: 5 },
        { profileId: plain, amount: 6 },
      ],
    },
    MERCHANT,
    new Date(),
  );
  expect(payments.map((p) => paymentView(p).sponsorKey)).toEqual(['SPR-2026', undefined]);
  expect(paymentView(payments[1]!)).not.toHaveProperty('sponsorKey');

  const added = await addPayment(
    group.paymentGroupId,
    MERCHANT,
    { paymentGroupId: group.paymentGroupId, profileId: sponsored, amount: 7 },
    new Date(),
  );
  expect(paymentView(added).sponsorKey).toBe('SPR-2026');

  // A PUT moving a payment to another payor's method takes that payor's key (or none).
  const moved = await updatePayment(
    group.paymentGroupId,
    added.paymentId,
    MID,
    { paymentGroupId: group.paymentGroupId, paymentId: added.paymentId, profileId: plain, amount: 7 },
    new Date(),
  );
  expect(moved).not.toHaveProperty('sponsorKey');
  const back = await updatePayment(
    group.paymentGroupId,
    payments[1]!.paymentId,
    MID,
    {
      paymentGroupId: group.paymentGroupId,
      paymentId: payments[1]!.paymentId,
      profileId: sponsored,
      amount: 6,
    },
    new Date(),
  );
  expect(back.sponsorKey).toBe('SPR-2026');

  // The sale charging a scheduled payment carries the payment's key.
  const state = { paymentGroupId: group.paymentGroupId, merchantId: MID, allowPartial: false } as BatchState;
  const sold = (await charge(payments[0]!, state)).txn!;
  expect(sold.status).toBe('Approved');
  expect(transactionView(sold, [], new Date()).sponsorKey).toBe('SPR-2026');
  const unsponsored = (await charge(moved, state)).txn!;
  expect(unsponsored.status).toBe('Approved');
  expect(transactionView(unsponsored, [], new Date())).not.toHaveProperty('sponsorKey');
});
