/**
 * Defect "a series PUT could not give a series' payment a new method" (DESIGN section 6: a
 * payment suspended because its method was revoked stays out of the occurrences "until
 * `replaceWith` or a series PUT gives them a new method"): the PUT had no `payments`, so a payor
 * whose only method was revoked could not be charged by the series again but through a new series.
 * A PUT's `payments` now names payments by index and gives each a saved method (another payor's
 * too): active again, its method use moved (the old method can go, the new one cannot), and the
 * next occurrence charges it.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CreateSeriesInput } from '#contract/schemas/series';
import { deleteMethod, deletePayor } from '#core/method-deletion';
import { addMethod } from '#core/payors';
import { MethodInUseError } from '#core/method-in-use';
import { cancelSeries, createDueOccurrences, createSeries, updateSeries } from '#core/series';
import type { SavedMethod } from '#domain/payors';
import { reloadConfigForTests } from '#shared/config';
import { keys } from '#store/keys';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { methodStore } from '#store/methods';
import { paymentStore } from '#store/payments';
import { methodDeletionStore } from '#store/method-deletions';
import { DynamoPayorStore, payorStore } from '#store/payors';
import { seriesStore } from '#store/series';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeMethod, makePayor } from '#support/fixtures/index';

const MERCHANT: Merchant = { merchantId: '32350000004', shortId: '23500004', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const DAY = 86_400_000;
const day = (ahead: number) => new Date(Date.now() + ahead * DAY).toISOString().slice(0, 10);
let table: TestTable;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
});
afterAll(() => table.drop());

async function aMethod(merchantId = MID): Promise<SavedMethod> {
  const { payor, method } = makePayor(merchantId);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  return method;
}
const profileOf = (m: SavedMethod) => `${m.payorId}/${m.savedPaymentMethodId}`;

const seriesOn = (profiles: string[], over: Partial<CreateSeriesInput> = {}) =>
  createSeries(
    {
      timeZone: 'America/New_York',
      localHour: 12,
      startDate: day(20),
      frequency: 'weekly',
      interval: 1,
      count: 3,
      noticeDays: 0,
      locationId: 1,
      payments: profiles.map((profileId, i) => ({ profileId, amount: 10 + i })),
      ...over,
    },
    MERCHANT,
    new Date(),
  );

/** The series payment at `index` suspended, as a revocation of its method leaves it (and its total). */
async function suspend(seriesId: string, index: number): Promise<void> {
  const payment = (await seriesStore().paymentsAt(seriesId, [index])).get(index)!;
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.seriesPayment(seriesId, index),
      UpdateExpression: 'SET #s = :s, suspendedReason = :r',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': 'suspended', ':r': 'authorization_revoked' },
    }),
  );
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.series(seriesId),
      UpdateExpression: 'ADD totalCents :minus',
      ExpressionAttributeValues: { ':minus': -payment.amountCents },
    }),
  );
}

const useIndices = async (method: SavedMethod, seriesId: string) =>
  (
    (
      await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :series)',
          ExpressionAttributeValues: {
            ':pk': keys.methodUses(method.savedPaymentMethodId),
            ':series': `SERIES#${seriesId}#`,
          },
          ConsistentRead: true,
        }),
      )
    ).Items ?? []
  ).map((i) => i.index as number);

const refused = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (e: unknown) => e as { status?: number; message: string },
  );

test('defect: a series PUT could not give a suspended payment a new method; it does, the use moves and the next occurrence charges it', async () => {
  const [revoked, other] = [await aMethod(), await aMethod()];
  const series = await seriesOn([profileOf(revoked), profileOf(revoked)], { startDate: day(1) });
  await suspend(series.seriesId, 0);

  const updated = await updateSeries(
    series.seriesId,
    MID,
    { payments: [{ index: 0, profileId: profileOf(other).toUpperCase() }] },
    new Date(),
  );
  expect(updated.revision).toBe(series.revision + 1);
  // Active again: each occurrence charges it, and the series' total says so.
  expect(updated.totalCents).toBe(series.totalCents);
  expect((await seriesStore().get(series.seriesId))!.totalCents).toBe(series.totalCents);
  const [first, second] = await seriesStore().payments(series.seriesId);
  expect(first).toMatchObject({ index: 0, profileId: profileOf(other) });
  expect(first).not.toHaveProperty('status');
  expect(first).not.toHaveProperty('suspendedReason');
  expect(second).toMatchObject({ index: 1, profileId: profileOf(revoked) });
  expect(await useIndices(revoked, series.seriesId)).toEqual([1]);
  expect(await useIndices(other, series.seriesId)).toEqual([0]);

  // The new method's payor is now in use by the series: not deleted from under it (409).
  const deletion = await refused(deletePayor(other.payorId, MID, new Date()));
  expect(deletion).toBeInstanceOf(MethodInUseError);
  expect(deletion?.message).toContain('series');

  // The next occurrence charges both payments, the first on its new method.
  await createDueOccurrences({ horizon: new Date(Date.now() + 3 * DAY), deadline: Date.now() + 60_000 });
  const created = (await seriesStore().get(series.seriesId))!.occurrences.find((o) => o.paymentGroupId);
  const payments = await paymentStore().listPayments(created!.paymentGroupId!);
  expect(payments.map((p) => p.profileId).sort()).toEqual([profileOf(other), profileOf(revoked)].sort());
});

test('refusals name the payment: an index the series does not have, one index twice, a method not of this merchant; a canceled series', async () => {
  const [mine, theirs] = [await aMethod(), await aMethod('32350000005')];
  const series = await seriesOn([profileOf(mine)]);
  const put = (payments: { index: number; profileId: string }[]) =>
    refused(updateSeries(series.seriesId, MID, { payments }, new Date()));

  expect(await put([{ index: 3, profileId: profileOf(mine) }])).toMatchObject({
    status: 400,
    message: `payments[0].index 3 names no payment of series ${series.seriesId}`,
  });
  expect(
    await put([
      { index: 0, profileId: profileOf(mine) },
      { index: 0, profileId: profileOf(mine) },
    ]),
  ).toMatchObject({ status: 400, message: 'payments[1].index 0 names the same payment as payments[0]' });
  expect(await put([{ index: 0, profileId: profileOf(theirs) }])).toMatchObject({
    status: 400,
    message: expect.stringContaining('payments[0].profileId'),
  });
  const before = await seriesStore().get(series.seriesId);
  // Its own method again, not suspended: nothing changes, nothing is announced.
  expect(
    (
      await updateSeries(
        series.seriesId,
        MID,
        { payments: [{ index: 0, profileId: profileOf(mine) }] },
        new Date(),
      )
    ).revision,
  ).toBe(before!.revision);

  await cancelSeries(series.seriesId, MID, new Date());
  expect(await put([{ index: 0, profileId: profileOf(mine) }])).toMatchObject({
    status: 400,
    message: `series ${series.seriesId} is canceled; it cannot change`,
  });
});

/**
 * The method revoked right after the request's check read it: a return's revocation between the
 * check and the write, its suspension of the series' payments finding none of this request's.
 */
function revokedAfterTheCheck(method: SavedMethod) {
  const store = methodStore();
  const read = store.methodsByRef.bind(store);
  return jest.spyOn(store, 'methodsByRef').mockImplementationOnce(async (...args) => {
    const found = await read(...args);
    await revoke(method);
    return found;
  });
}

/** The method's status as a return's revocation writes it. */
const revoke = (method: SavedMethod) =>
  table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.method(method.payorId, method.savedPaymentMethodId),
      UpdateExpression: 'SET #s = :revoked',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked' },
    }),
  );

const REVOKED = /payments\[0\]\.profileId .* names a saved payment method whose authorization was revoked/;

test.each([
  ['one transaction', 1],
  ['written ahead', 60],
])(
  'defect: a series created while a return revoked its method kept the method, its payment never suspended (%s): the create is refused naming the revoked method',
  async (_, count) => {
    const method = await aMethod();
    const before = await seriesStore().list(MID, {}, 1000);
    const spy = revokedAfterTheCheck(method);
    const refusal = await refused(seriesOn(Array.from({ length: count }, () => profileOf(method))));
    spy.mockRestore();
    expect(refusal).toMatchObject({ status: 400, message: expect.stringMatching(REVOKED) });
    expect(await seriesStore().list(MID, {}, 1000)).toHaveLength(before.length);
  },
);

test('defect: a series PUT that gave a payment a method a return revoked meanwhile kept the method active: refused naming it, the payment where it was', async () => {
  const [kept, revoked] = [await aMethod(), await aMethod()];
  const series = await seriesOn([profileOf(kept)]);
  const spy = revokedAfterTheCheck(revoked);
  const refusal = await refused(
    updateSeries(
      series.seriesId,
      MID,
      { payments: [{ index: 0, profileId: profileOf(revoked) }] },
      new Date(),
    ),
  );
  spy.mockRestore();
  expect(refusal).toMatchObject({ status: 400, message: expect.stringMatching(REVOKED) });
  const [payment] = await seriesStore().payments(series.seriesId);
  expect(payment).toMatchObject({ index: 0, profileId: profileOf(kept) });
  expect(await useIndices(revoked, series.seriesId)).toEqual([]);
});

test('defect: a DELETE with replaceWith moved a series payment onto its replacement while a return revoked it, the payment active on a revoked method: the deletion is undone (409), the payment where it was', async () => {
  const { payor, method: old } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, old);
  const replacement = makeMethod(payor.payorId, MID);
  await addMethod(replacement, false, new Date());
  const series = await seriesOn([profileOf(old)]);
  const store = methodDeletionStore();
  const move = store.moveSeriesPayments.bind(store);
  const spy = jest.spyOn(store, 'moveSeriesPayments').mockImplementationOnce(async (...args) => {
    await revoke(replacement);
    return move(...args);
  });
  const refusal = await refused(
    deleteMethod(payor.payorId, old.savedPaymentMethodId, MID, replacement.savedPaymentMethodId, new Date()),
  );
  spy.mockRestore();
  expect(refusal).toMatchObject({
    status: 409,
    message: expect.stringContaining(`replaceWith ${replacement.savedPaymentMethodId} was revoked`),
  });
  const [payment] = await seriesStore().payments(series.seriesId);
  expect(payment).toMatchObject({ index: 0, profileId: profileOf(old) });
  expect(await useIndices(replacement, series.seriesId)).toEqual([]);
  const kept = (await payorStore().find(payor.payorId, MID))!.methods;
  expect(kept.find((m) => m.savedPaymentMethodId === old.savedPaymentMethodId)).not.toHaveProperty(
    'deletion',
  );
});
