/**
 * Expiring cards on DynamoDB Local (issue 21 item 3): the merchant's expiry index lists the payors
 * with a card expiring before a month, earliest first, page by page; it follows an expiry update,
 * leaves out bank accounts and other merchants. The migration puts methods written before the
 * indexes on them (and on the account updater's token index), once.
 */
import { MAX_RESPONSE_BYTES } from '#contract/limits';
import { reloadConfigForTests } from '#shared/config';
import { addMethod, savePayor, updateMethod } from '#core/payors';
import { payorsExpiring } from '#core/expiring';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { AccountUpdateStore } from '#store/account-updates';
import { backfillMethodIndexes } from '#store/method-index-backfill';
import { payorsExpiringBefore } from '#store/expiring';
import { DynamoMethodStore } from '#store/methods';
import { DynamoPayorStore } from '#store/payors';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeMethod, makePayor } from '#support/fixtures/index';

let table: TestTable;
const MERCHANT = '32350000001';
const OTHER = '32350000002';

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
});
afterAll(() => table.drop());

/** A payor of `merchantId` whose first card expires in `month` (yyyy-MM). */
async function payorWithCard(merchantId: string, month: string, accountType: 'VISA' | 'CHECKING' = 'VISA') {
  const { payor, method } = makePayor(merchantId);
  const [year, m] = month.split('-').map(Number);
  const card = { ...method, accountType, expiryMonth: m!, expiryYear: year! };
  if (accountType === 'CHECKING') {
    delete (card as { expiryMonth?: number }).expiryMonth;
    delete (card as { expiryYear?: number }).expiryYear;
  }
  await savePayor(payor, card, new DynamoPayorStore(table.db, table.tableName));
  return { payorId: payor.payorId, methodId: method.savedPaymentMethodId };
}

it('lists the payors with a card expiring before the month, earliest first, in pages', async () => {
  const a = await payorWithCard(MERCHANT, '2027-01');
  const b = await payorWithCard(MERCHANT, '2027-05');
  const second = { ...makeMethod(b.payorId, MERCHANT), expiryMonth: 10, expiryYear: 2026 };
  await addMethod(second, false, new Date(), new DynamoMethodStore(table.db, table.tableName));
  const later = await payorWithCard(MERCHANT, '2027-03');
  await payorWithCard(MERCHANT, '2020-01', 'CHECKING');
  await payorWithCard(OTHER, '2026-01');

  const listed = await payorsExpiring(MERCHANT, '2027-03', undefined);
  expect(listed.payors.map((p) => p.payorId)).toEqual([b.payorId, a.payorId]);
  expect(listed.nextPageToken).toBeUndefined();
  expect(listed.payors[0]!.savedPaymentMethods).toHaveLength(2);

  // One payor a page: b (2026-10), a (2027-01), later (2027-03), then b again for its 2027-05 card.
  const order: string[] = [];
  let after: string | undefined;
  do {
    const page = await payorsExpiringBefore(table.db, table.tableName, MERCHANT, '2027-06', after, 1);
    if (page === 'invalid') throw new Error('invalid');
    order.push(...page.payorIds);
    after = page.after;
  } while (after !== undefined);
  expect(order).toEqual([b.payorId, a.payorId, later.payorId, b.payorId]);

  // A new expiry moves the card on the index.
  await updateMethod(a.payorId, a.methodId, MERCHANT, { expiryMonth: 12, expiryYear: 2030 }, new Date());
  expect((await payorsExpiring(MERCHANT, '2027-03', undefined)).payors.map((p) => p.payorId)).toEqual([
    b.payorId,
  ]);
});

it('a page token from another month or made up is refused', async () => {
  const token = Buffer.from(`2027-05#${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}#x`).toString(
    'base64url',
  );
  await expect(payorsExpiring(MERCHANT, '2027-03', token)).rejects.toThrow(/pageToken is not a next page/);
});

it('the migration indexes a method written before the indexes, once', async () => {
  const merchant = '32350000003';
  const { payorId } = await payorWithCard(merchant, '2026-02');
  const { payor, method } = makePayor(merchant);
  const old = { ...method, expiryMonth: 1, expiryYear: 2026 };
  // As written before issue 21: the payor and its method on no index.
  for (const item of [
    { ...keys.payor(payor.payorId), entity: 'payor', ...payor },
    { ...keys.method(payor.payorId, old.savedPaymentMethodId), entity: 'method', ...old },
  ])
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: item }));
  const listed = async () =>
    (await payorsExpiring(merchant, '2026-03', undefined)).payors.map((p) => p.payorId);
  expect(await listed()).toEqual([payorId]);

  expect(await backfillMethodIndexes(table.db, table.tableName)).toMatchObject({ indexed: 1 });
  expect(await listed()).toEqual([payor.payorId, payorId]);
  const byToken = await new AccountUpdateStore(table.db, table.tableName).methodsOfToken(old.processorToken);
  expect(byToken).toEqual([
    { payorId: payor.payorId, savedPaymentMethodId: old.savedPaymentMethodId, merchantId: merchant },
  ]);

  expect(await backfillMethodIndexes(table.db, table.tableName)).toMatchObject({ indexed: 0 });
});

it("defect: a page of 100 payors with large customerData passed Lambda's 6 MB response limit (a 5xx): a page ends at the last payor that fits, and the next goes on from there", async () => {
  const merchant = '32350000004';
  // 50 fields of 500 three-byte characters: about 75 KB a payor, 90 of them about 7 MB.
  const customerData = Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`field${i}`, '支'.repeat(500)]),
  );
  const ids: string[] = [];
  for (let i = 0; i < 90; i++) {
    const { payor, method } = makePayor(merchant);
    const card = { ...method, accountType: 'VISA' as const, expiryMonth: 1 + (i % 12), expiryYear: 2026 };
    await savePayor({ ...payor, customerData }, card, new DynamoPayorStore(table.db, table.tableName));
    ids.push(payor.payorId);
  }
  const listed: string[] = [];
  const sizes: number[] = [];
  let token: string | undefined;
  do {
    const page = await payorsExpiring(merchant, '2027-01', token);
    sizes.push(Buffer.byteLength(JSON.stringify(JSON.stringify(page.payors))));
    listed.push(...page.payors.map((p) => p.payorId));
    token = page.nextPageToken;
  } while (token !== undefined && sizes.length < 10);
  expect(sizes.length).toBeGreaterThan(1);
  expect(sizes.filter((bytes) => bytes > MAX_RESPONSE_BYTES)).toEqual([]);
  // Every payor once (one card each: none shows on two pages).
  expect([...listed].sort()).toEqual([...ids].sort());
}, 60_000);
