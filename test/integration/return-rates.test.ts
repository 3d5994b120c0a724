/**
 * Return rates against DynamoDB Local (store/return-rates.ts, core/return-rates.ts): a bank debit is
 * counted once with its approval and uncounted with its void, a return with the transaction that
 * records it; the job announces a change of status once however many runs race, recomputes each
 * merchant daily as debits leave the window, and stays within its deadline.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { merchantReturnRates, refreshReturnRates, runReturnRatesJob } from '#core/return-rates';
import { voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import type { ReturnCategory } from '#domain/return-rates';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { eventStore } from '#store/events';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { debitCountItem, returnCountItems, returnRateStore } from '#store/return-rates';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

let table: TestTable;
let merchantSeq = 0;
/** A fresh 11-digit MID, registered (listed) unless told otherwise. */
async function aMerchant(register = true): Promise<string> {
  const mid = `9${String(Date.now() % 1e6).padStart(6, '0')}${String(++merchantSeq).padStart(4, '0')}`;
  if (register) await new MerchantAdmin(table.db, table.tableName).register({ merchantId: mid, name: mid });
  return mid;
}

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  // Sales settle a day after they are made: a void now is before the cut-off.
  const schedule = {
    periodSeconds: 86_400,
    offsetSeconds: (Math.floor(Date.now() / 1000) + 43_200) % 86_400,
  };
  useProcessor(new SandboxProcessor(ddb(), table.tableName, schedule));
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A stored payor whose one method is a bank account (or a card), its profileId. */
async function aProfile(
  merchantId: string,
  accountType: 'CHECKING' | 'VISA',
  profile = accountType === 'CHECKING' ? 'bank' : 'ok',
): Promise<string> {
  const { payor, method } = makePayor(merchantId, {}, profile);
  method.accountType = accountType;
  method.maskedAccountNumber = accountType === 'CHECKING' ? '********6789' : '************1111';
  if (accountType === 'CHECKING') {
    delete method.expiryMonth;
    delete method.expiryYear;
  }
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  return `${payor.payorId}/${method.savedPaymentMethodId}`;
}

/** Debits of `merchantId` approved at `at`, counted as the sale's write counts them; their ids. */
async function debitsAt(merchantId: string, at: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId());
  for (const transactionId of ids) {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          debitCountItem(table.tableName, { merchantId, transactionId, processedAt: at }, 1),
        ] as never,
      }),
    );
  }
  return ids;
}

/** A return of the debit `transactionId` made at `at`, written as the transaction that records it does. */
async function returned(merchantId: string, transactionId: string, at: string, category: ReturnCategory) {
  await table.db.send(
    new TransactWriteCommand({
      TransactItems: returnCountItems(
        table.tableName,
        { merchantId, transactionId, processedAt: at },
        category,
        new Date(),
      ) as never,
    }),
  );
}

const changeEvents = async (merchantId: string) =>
  (await eventStore().page(merchantId, { type: 'merchant.return_rates_changed' }, 50)).events;

const daysAgo = (days: number, from = new Date()) =>
  new Date(from.getTime() - days * 86_400_000).toISOString();

describe('return-rate counters', () => {
  test('a merchant with no debits has rates of 0 and status ok', async () => {
    const rates = await merchantReturnRates(await aMerchant(false), new Date());
    expect(rates).toMatchObject({
      debitCount: 0,
      status: 'ok',
      overall: { count: 0, rate: 0, status: 'ok' },
    });
  });

  test("a bank debit's approval is counted once, whatever repeats the sale; a card charge is not counted", async () => {
    const merchantId = await aMerchant(false);
    const bank = await aProfile(merchantId, 'CHECKING');
    const card = await aProfile(merchantId, 'VISA');
    const request = saleRequest(merchantId, bank, 2500);
    const first = await runSale(request, new Date());
    expect(first.status).toBe('Approved');
    // The same sale again (a retried step, a resumed request): its record is written once.
    await Promise.all(Array.from({ length: 8 }, () => runSale(request, new Date())));
    expect((await runSale(saleRequest(merchantId, card, 2500), new Date())).status).toBe('Approved');
    expect((await merchantReturnRates(merchantId, new Date())).debitCount).toBe(1);
  });

  test('a declined bank debit is not counted, and a voided one is no longer counted', async () => {
    const merchantId = await aMerchant(false);
    const bank = await aProfile(merchantId, 'CHECKING');
    const insufficient = await aProfile(merchantId, 'CHECKING', '51');
    const approved = await runSale(saleRequest(merchantId, bank, 1000), new Date());
    await runSale(saleRequest(merchantId, bank, 2000), new Date());
    expect((await runSale(saleRequest(merchantId, insufficient, 3000), new Date())).status).toBe('Declined');
    expect((await merchantReturnRates(merchantId, new Date())).debitCount).toBe(2);
    await Promise.all(
      Array.from({ length: 8 }, () => voidSale(merchantId, approved.transactionId, new Date())),
    );
    expect((await merchantReturnRates(merchantId, new Date())).debitCount).toBe(1);
  });

  test("a return counts on its debit's day, however late it comes, and by its category", async () => {
    const merchantId = await aMerchant(false);
    const [old] = await debitsAt(merchantId, daysAgo(59), 1);
    const [older] = await debitsAt(merchantId, daysAgo(60), 1);
    await debitsAt(merchantId, daysAgo(0), 8);
    await returned(merchantId, old!, daysAgo(59), 'unauthorized');
    // The debit of 60 days ago has left the window: its return is not counted either.
    await returned(merchantId, older!, daysAgo(60), 'administrative');
    const rates = await merchantReturnRates(merchantId, new Date());
    expect(rates).toMatchObject({
      debitCount: 9,
      unauthorized: { count: 1, rate: 0.1111, status: 'over' },
      administrative: { count: 0, rate: 0, status: 'ok' },
      overall: { count: 1, rate: 0.1111, status: 'warning' },
      status: 'over',
    });
  });
});

describe('the return-rates job', () => {
  const FAR = () => Date.now() + 60_000;

  test('a change of status is announced once (merchant.return_rates_changed), however many runs race', async () => {
    const merchantId = await aMerchant();
    const ids = await debitsAt(merchantId, daysAgo(1), 100);
    await returned(merchantId, ids[0]!, daysAgo(1), 'unauthorized');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => refreshReturnRates(merchantId, new Date())),
    );
    expect(outcomes.filter((o) => o === 'changed')).toHaveLength(1);
    const events = await changeEvents(merchantId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      objectId: merchantId,
      sequence: 1,
      data: { debitCount: 100, unauthorized: { count: 1, rate: 0.01, status: 'over' }, status: 'over' },
    });
    expect(await returnRateStore().state(merchantId)).toMatchObject({ status: 'over', eventSeq: 1 });
  });

  test("a return's mark makes the next run recompute its merchant, and the run removes the mark", async () => {
    const merchantId = await aMerchant();
    const ids = await debitsAt(merchantId, daysAgo(2), 10);
    await runReturnRatesJob(new Date(), FAR());
    expect(await changeEvents(merchantId)).toHaveLength(0);
    await returned(merchantId, ids[0]!, daysAgo(2), 'nsf');
    await returned(merchantId, ids[1]!, daysAgo(2), 'other');
    expect((await returnRateStore().changed(1000)).map((m) => m.merchantId)).toContain(merchantId);
    const report = await runReturnRatesJob(new Date(), FAR());
    expect(report.changedByReturns).toBeGreaterThanOrEqual(1);
    const [event] = await changeEvents(merchantId);
    // 2 of 10: 20%, over the overall limit of 15%
    expect(event?.data).toMatchObject({ overall: { count: 2, rate: 0.2, status: 'over' }, status: 'over' });
    expect((await returnRateStore().changed(1000)).map((m) => m.merchantId)).not.toContain(merchantId);
    expect(report.atAttention).toBeGreaterThanOrEqual(1);
  });

  test('statuses go back to ok as the debits leave the window: the daily pass recomputes every merchant', async () => {
    const merchantId = await aMerchant();
    const ids = await debitsAt(merchantId, daysAgo(58), 4);
    await returned(merchantId, ids[0]!, daysAgo(58), 'administrative');
    await runReturnRatesJob(new Date(), FAR());
    expect((await returnRateStore().state(merchantId))?.status).toBe('over');
    const before = (await runReturnRatesJob(new Date(), FAR())).atAttention;
    // Three days on, the debits of 58 days ago are 61 days old: out of the window, no mark needed.
    const later = new Date(Date.now() + 3 * 86_400_000);
    const report = await runReturnRatesJob(later, FAR());
    expect(report.passDone).toBe(true);
    const events = await changeEvents(merchantId);
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual(['ok', 'over']);
    expect(events[0]?.sequence).toBe(2);
    expect(report.atAttention).toBe(before - 1);
    // The day's pass is done: another run that day recomputes nobody.
    expect((await runReturnRatesJob(later, FAR())).recomputed).toBe(0);
  });

  test('bounded: no merchant is started after the deadline, and the next run goes on from the cursor', async () => {
    const day = new Date(Date.now() + 10 * 86_400_000);
    const stopped = await runReturnRatesJob(day, Date.now() - 1);
    expect(stopped).toMatchObject({ recomputed: 0, passDone: false });
    const resumed = await runReturnRatesJob(day, FAR());
    expect(resumed.passDone).toBe(true);
    expect(resumed.recomputed).toBeGreaterThan(0);
    expect((await runReturnRatesJob(day, FAR())).recomputed).toBe(0);
  });
});
