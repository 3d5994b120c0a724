/**
 * Reconciliation on a Stripe stage, end to end: a bank debit charged through the service's sale
 * path on the Stripe adapter (the stand-in), returned by the bank two days on, the return applied
 * from Stripe's events as the backstop lists them, then the stage reconciled against Stripe's
 * activity on DynamoDB Local. The return is counted as Stripe reports it, and nothing is flagged.
 */
import { applyNotice } from '#core/notices';
import { reconcile } from '#core/reconcile';
import { runSale } from '#core/sale';
import type { ProcessorNotice } from '#processor/processor';
import { useProcessor } from '#processor/index';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { newId } from '#shared/ids';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { ReconciliationRecords } from '#store/reconciliation';
import { useTestClock, type TestClock } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { bankOf, MERCHANT, stripeOnStandIn, type StripeOnStandIn } from '#support/stripe-stand-in';

const T0 = '2031-08-04T15:00:00.000Z';

let table: TestTable;
let stripe: StripeOnStandIn;
let testClock: TestClock;
beforeAll(async () => {
  testClock = useTestClock(T0);
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register({ merchantId: MERCHANT, name: 'Test' });
  stripe = await stripeOnStandIn();
  useProcessor(stripe.processor);
});
afterAll(async () => {
  useProcessor(undefined);
  useClock(undefined);
  await stripe.close();
  await table.drop();
});

/** A stored payor whose CHECKING account is vaulted at Stripe (the stand-in): its profile. */
async function stripeCheckingProfile(accountNumber: string): Promise<string> {
  const { payor, method } = makePayor(MERCHANT, { email: 'payor@example.com' });
  const { token } = await stripe.processor.tokenize(bankOf(accountNumber, payor.payorId));
  const checking = {
    ...method,
    accountType: 'CHECKING' as const,
    maskedAccountNumber: `********${accountNumber.slice(-4)}`,
    processorToken: token,
  };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  return `${payor.payorId}/${checking.savedPaymentMethodId}`;
}

it('a debit returned on Stripe is counted as a return, and no difference is flagged', async () => {
  const transactionId = newId();
  const sale = await runSale(
    {
      transactionId,
      processorKey: `sale:${transactionId}`,
      merchantId: MERCHANT,
      profileId: await stripeCheckingProfile('000222222227'),
      amountCents: 3100,
      allowPartial: false,
      missingMethod: 'reject',
    },
    testClock.now(),
  );
  expect(sale.status).toBe('Approved');

  // The bank returns it (R01) when the debit falls due; the backstop applies Stripe's event.
  testClock.advance((stripe.standIn.state.debitSettlesAfterSeconds + 60) * 1000);
  await stripe.standIn.tick();
  const notices: ProcessorNotice[] = [];
  for (let page = { cursor: undefined as string | undefined, more: true }; page.more;) {
    const listed = await stripe.processor.listNotices({
      ...(page.cursor !== undefined && { cursor: page.cursor }),
      limit: 100,
    });
    notices.push(...listed.notices);
    page = listed;
  }
  const returned = notices.filter((n) => n.kind === 'returned');
  expect(returned).toHaveLength(1);
  expect((await applyNotice(returned[0]!, testClock.now())).outcome).toBe('applied');

  // Reconciled a minute later, over the sale and its return.
  testClock.advance(60_000);
  const report = await reconcile(
    { since: T0, heal: false },
    {
      records: new ReconciliationRecords(table.db, table.tableName),
      processor: stripe.processor,
      sweep: async () => undefined,
    },
  );
  expect(report.differences).toEqual([]);
  expect(report.returns).toEqual({ count: 1, cents: 3100 });
});
