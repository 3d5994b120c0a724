/** The group store against DynamoDB Local: transactions, conditions and concurrent writers. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { newGroup, newPayment, type Group, type Payment } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { DynamoGroupStore, MAX_TRANSACTION_ITEMS } from '#store/groups';
import { DynamoPaymentStore } from '#store/payments';
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import { createTestTable, type TestTable } from '#support/ddb';
import { storedProfile } from '#support/sales';
import { changeGroupSettings, markGroupDeleted } from '#support/group-changes';

let table: TestTable;
let store: DynamoGroupStore;
/** A stored method: every payment names one that exists (the create's fence checks it). */
let PROFILE: string;
let payStore: DynamoPaymentStore;
const MERCHANT = '32350000001';
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoGroupStore(table.db, table.tableName);
  PROFILE = await storedProfile(table, MERCHANT);
  payStore = new DynamoPaymentStore(table.db, table.tableName);
});
afterAll(() => table.drop());

function makeGroup(payments: number, hour = 10, date = tomorrow()): { group: Group; payments: Payment[] } {
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: date, scheduleHour: hour, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const list = Array.from({ length: payments }, (_, i) =>
    newPayment({ profileId: PROFILE, amount: (i % 7) + 0.01 }, group, newId(), now),
  );
  group.paymentCount = list.length;
  group.totalCents = list.reduce((s, p) => s + p.amountCents, 0);
  return { group, payments: list };
}

async function rawItem(key: { pk: string; sk: string }) {
  return (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key }))).Item;
}

test('a created group is readable with its payments, totals and index keys', async () => {
  const { group, payments } = makeGroup(3, 7);
  await store.createGroup(group, payments);
  const stored = await store.getGroup(group.paymentGroupId);
  expect(stored).toEqual(group);
  expect((await payStore.listPayments(group.paymentGroupId)).map((p) => p.paymentId)).toEqual(
    payments.map((p) => p.paymentId),
  );
  const item = await rawItem(keys.group(group.paymentGroupId));
  expect(item?.gsi1pk).toBe(`MERCHANT#${MERCHANT}`);
  expect(item?.gsi2pk).toMatch(/^DUE#\d$/);
  expect(item?.gsi2sk).toBe(`${group.scheduleDate}T07#${group.paymentGroupId}`);
});

test('a group of 250 payments (beyond one transaction) is written whole', async () => {
  const { group, payments } = makeGroup(250);
  await store.createGroup(group, payments);
  expect(await store.getGroup(group.paymentGroupId)).toMatchObject({
    paymentCount: 250,
    totalCents: group.totalCents,
  });
  expect(await payStore.listPayments(group.paymentGroupId)).toHaveLength(250);
});

test('creating a group whose id exists fails and writes nothing new', async () => {
  const { group, payments } = makeGroup(2);
  await store.createGroup(group, payments);
  const again = makeGroup(2);
  again.group.paymentGroupId = group.paymentGroupId;
  for (const p of again.payments) p.paymentGroupId = group.paymentGroupId;
  await expect(store.createGroup(again.group, again.payments)).rejects.toThrow();
  expect(await payStore.listPayments(group.paymentGroupId)).toHaveLength(2);
});

describe('outbox items written with the payments', () => {
  /** A payment-scheduled notice of this payment, as the handlers build it. */
  const notice = (payment: Payment, group: Group): OutboxItem => ({
    outboxId: `notice:${payment.paymentId}`,
    kind: 'payment-scheduled',
    recipient: 'payor@example.com',
    status: 'pending',
    attempts: 0,
    createdAt: new Date().toISOString(),
    paymentGroupId: group.paymentGroupId,
    data: {
      merchantName: 'Springfield Elementary',
      amountCents: payment.amountCents,
      maskedAccountNumber: '************1111',
      accountType: 'VISA',
      scheduleDate: group.scheduleDate,
      scheduleHour: group.scheduleHour,
      paymentId: payment.paymentId,
    },
  });
  const outboxItem = (payment: Payment) => rawItem(keys.outbox(`notice:${payment.paymentId}`));

  test.each([
    [MAX_TRANSACTION_ITEMS - 3, 'one transaction of exactly 100 items'],
    [MAX_TRANSACTION_ITEMS - 2, 'the batch path (101 items)'],
  ])('%p payments with 2 notices: %s, all written', async (count) => {
    const { group, payments } = makeGroup(count);
    const notices = [notice(payments[0]!, group), notice(payments[count - 1]!, group)];
    await store.createGroup(group, payments, notices);
    expect(await store.getGroup(group.paymentGroupId)).toMatchObject({ paymentCount: count });
    expect(await payStore.listPayments(group.paymentGroupId)).toHaveLength(count);
    for (const p of [payments[0]!, payments[count - 1]!]) {
      expect(await outboxItem(p)).toMatchObject({
        pk: `OUTBOX#notice:${p.paymentId}`,
        sk: 'OUTBOX',
        entity: 'outbox',
        kind: 'payment-scheduled',
        status: 'pending',
        attempts: 0,
        paymentGroupId: group.paymentGroupId,
        data: { amountCents: p.amountCents, paymentId: p.paymentId },
      });
    }
    expect(await outboxItem(payments[1]!)).toBeUndefined();
  });

  test('addPayment writes the notice in the same transaction; a refused add writes neither', async () => {
    const { group } = makeGroup(0);
    await store.createGroup(group, []);
    const now = new Date();
    const added = newPayment({ profileId: PROFILE, amount: 4.2 }, group, newId(), now);
    expect(await payStore.addPayment(added, now, [notice(added, group)])).toBe('ok');
    expect(await outboxItem(added)).toMatchObject({ entity: 'outbox', recipient: 'payor@example.com' });
    expect(await store.getGroup(group.paymentGroupId)).toMatchObject({ paymentCount: 1, totalCents: 420 });

    expect(await markGroupDeleted(store, group.paymentGroupId, now)).toBe(true);
    const refused = newPayment({ profileId: PROFILE, amount: 1 }, group, newId(), now);
    expect(await payStore.addPayment(refused, now, [notice(refused, group)])).toBe('group-not-editable');
    expect(await payStore.getPayment(group.paymentGroupId, refused.paymentId)).toBeUndefined();
    expect(await outboxItem(refused)).toBeUndefined();
  });
});

test('50 concurrent payment adds keep paymentCount and totalCents exact', async () => {
  const { group } = makeGroup(0);
  await store.createGroup(group, []);
  const now = new Date();
  const amounts = Array.from({ length: 50 }, (_, i) => 1 + i / 100);
  const outcomes = await Promise.all(
    amounts.map((amount) =>
      payStore.addPayment(newPayment({ profileId: PROFILE, amount }, group, newId(), now), now),
    ),
  );
  expect(outcomes.every((o) => o === 'ok')).toBe(true);
  const stored = await store.getGroup(group.paymentGroupId);
  expect(stored?.paymentCount).toBe(50);
  expect(stored?.totalCents).toBe(amounts.reduce((s, a) => s + Math.round(a * 100), 0));
});

test('concurrent adds, deletes and replacements leave totals equal to the live payments', async () => {
  const { group, payments } = makeGroup(20);
  await store.createGroup(group, payments);
  const now = new Date();
  const work: Promise<unknown>[] = [];
  for (const p of payments.slice(0, 10)) work.push(payStore.softDeletePayment(p, now));
  for (const p of payments.slice(10, 15))
    work.push(
      payStore.replacePayment(
        p,
        { ...p, amountCents: p.amountCents + 100, lastUpdated: new Date().toISOString() },
        now,
      ),
    );
  for (let i = 0; i < 10; i++)
    work.push(payStore.addPayment(newPayment({ profileId: PROFILE, amount: 2.5 }, group, newId(), now), now));
  await Promise.all(work);
  const live = (await payStore.listPayments(group.paymentGroupId)).filter((p) => !p.deleted);
  const stored = await store.getGroup(group.paymentGroupId);
  expect(stored?.paymentCount).toBe(live.length);
  expect(stored?.totalCents).toBe(live.reduce((s, p) => s + p.amountCents, 0));
  expect(live).toHaveLength(20);
});

test('a stale replacement and a double delete are refused by their conditions', async () => {
  const { group, payments } = makeGroup(1);
  await store.createGroup(group, payments);
  const p = payments[0]!;
  const now = new Date();
  expect(await payStore.replacePayment(p, { ...p, amountCents: 500, lastUpdated: 'x' }, now)).toBe('ok');
  expect(await payStore.replacePayment(p, { ...p, amountCents: 900, lastUpdated: 'y' }, now)).toBe(
    'payment-changed',
  );
  const current = (await payStore.getPayment(group.paymentGroupId, p.paymentId))!;
  expect(await payStore.softDeletePayment(current, now)).toBe('ok');
  expect(await payStore.softDeletePayment(current, now)).toBe('payment-changed');
  expect(await store.getGroup(group.paymentGroupId)).toMatchObject({ paymentCount: 0, totalCents: 0 });
});

test('payments of a group that is not pending cannot change', async () => {
  const { group, payments } = makeGroup(1);
  await store.createGroup(group, payments);
  expect(await markGroupDeleted(store, group.paymentGroupId, new Date())).toBe(true);
  const now = new Date();
  expect(
    await payStore.addPayment(newPayment({ profileId: PROFILE, amount: 1 }, group, newId(), now), now),
  ).toBe('group-not-editable');
  expect(await payStore.softDeletePayment(payments[0]!, now)).toBe('group-not-editable');
  expect(await markGroupDeleted(store, group.paymentGroupId, now)).toBe(false);
  const item = await rawItem(keys.group(group.paymentGroupId));
  expect(item?.gsi2pk).toBeUndefined();
  expect(await store.getGroup(group.paymentGroupId)).toMatchObject({ status: 'deleted', paymentCount: 1 });
});

test('a group refuses a payment add of another merchant, when full, or at another slot than the notice names', async () => {
  const now = new Date();
  const { group } = makeGroup(0, 10);
  await store.createGroup(group, []);
  const add = (over: Partial<Payment> = {}, slot?: Pick<Group, 'scheduleDate' | 'scheduleHour'>) =>
    payStore.addPayment(
      { ...newPayment({ profileId: PROFILE, amount: 1 }, group, newId(), now), ...over },
      now,
      [],
      slot,
    );
  expect(await add({ merchantId: '32350000002' })).toBe('group-not-editable');
  expect(await add({}, { scheduleDate: group.scheduleDate, scheduleHour: 11 })).toBe('group-not-editable');
  expect(await add({}, { scheduleDate: group.scheduleDate, scheduleHour: 10 })).toBe('ok');

  const full = makeGroup(0);
  await store.createGroup({ ...full.group, paymentCount: MAX_PAYMENTS_PER_GROUP }, []);
  const extra = newPayment({ profileId: PROFILE, amount: 1 }, full.group, newId(), now);
  expect(await payStore.addPayment(extra, now)).toBe('group-not-editable');
  expect(await store.getGroup(group.paymentGroupId)).toMatchObject({ paymentCount: 1, totalCents: 100 });
});

test('a payment add racing a group delete never changes a deleted group', async () => {
  const { group } = makeGroup(0);
  await store.createGroup(group, []);
  const now = new Date();
  const adds = Array.from({ length: 20 }, () =>
    payStore.addPayment(newPayment({ profileId: PROFILE, amount: 3 }, group, newId(), now), now),
  );
  // A delete holds only on the totals it read: retried, as core does, until it holds.
  const deleteGroup = async () => {
    while (!(await markGroupDeleted(store, group.paymentGroupId, now)));
    return true;
  };
  const [deleted, ...outcomes] = await Promise.all([deleteGroup(), ...adds]);
  expect(deleted).toBe(true);
  const stored = (await store.getGroup(group.paymentGroupId))!;
  const live = (await payStore.listPayments(group.paymentGroupId)).filter((p) => !p.deleted);
  expect(stored.paymentCount).toBe(live.length);
  expect(stored.paymentCount).toBe(outcomes.filter((o) => o === 'ok').length);
});

test('settings updates retried over concurrent payment adds keep every total and move the index keys', async () => {
  const { group } = makeGroup(0, 3);
  await store.createGroup(group, []);
  const now = new Date();
  // A settings write holds only on the totals it read: retried, as core does, until it holds.
  const update = async () => {
    while (!(await changeGroupSettings(store, group.paymentGroupId, { scheduleHour: 5 }, now)));
  };
  await Promise.all([
    update(),
    ...Array.from({ length: 10 }, () =>
      payStore.addPayment(newPayment({ profileId: PROFILE, amount: 1 }, group, newId(), now), now),
    ),
  ]);
  const stored = (await store.getGroup(group.paymentGroupId))!;
  expect(stored.scheduleHour).toBe(5);
  expect(stored.paymentCount).toBe(10);
  const item = await rawItem(keys.group(group.paymentGroupId));
  expect(item?.gsi1sk).toBe(`${group.scheduleDate}T05#${group.paymentGroupId}`);
  expect(item?.gsi2sk).toBe(`${group.scheduleDate}T05#${group.paymentGroupId}`);
});

describe('listing a merchant’s groups', () => {
  const merchant = '32350000099';
  const date = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  const made: Group[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const now = new Date();
      const g = newGroup(
        { servicePayId: merchant, scheduleDate: date, scheduleHour: i % 3, locationId: i % 2 },
        merchant,
        newId(),
        now,
      );
      await store.createGroup(g, []);
      made.push(g);
    }
    await markGroupDeleted(store, made[0]!.paymentGroupId);
  });

  test('is a Query on GSI1 with key conditions for date and hour', async () => {
    const all = await store.listGroups(merchant, { pendingOnly: false }, Number.POSITIVE_INFINITY);
    expect(all).toHaveLength(12);
    // At most as many as asked: the unpaged list reads one past its bound, never the whole range.
    expect(await store.listGroups(merchant, { pendingOnly: false }, 5)).toEqual(all.slice(0, 5));
    expect(await store.listGroups(merchant, { date, hour: 1, pendingOnly: false }, 100)).toHaveLength(4);
    expect(
      await store.listGroups(merchant, { hour: 2, locationId: 0, pendingOnly: false }, 100),
    ).toHaveLength(2);
    expect(await store.listGroups(merchant, { pendingOnly: true }, 100)).toHaveLength(11);
    const raw = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :m',
        ExpressionAttributeValues: { ':m': `MERCHANT#${merchant}` },
      }),
    );
    expect(raw.Count).toBe(12);
  });

  test('pages count every match and slice exactly', async () => {
    const first = await store.pageGroups(merchant, { pendingOnly: false }, { pageNumber: 1, pageSize: 5 });
    const third = await store.pageGroups(merchant, { pendingOnly: false }, { pageNumber: 3, pageSize: 5 });
    const past = await store.pageGroups(merchant, { pendingOnly: false }, { pageNumber: 9, pageSize: 5 });
    expect(first.total).toBe(12);
    expect(first.items).toHaveLength(5);
    expect(third.items).toHaveLength(2);
    expect(past).toEqual({ items: [], total: 12 });
    const all = await store.listGroups(merchant, { pendingOnly: false }, 100);
    expect(first.items.map((g) => g.paymentGroupId)).toEqual(all.slice(0, 5).map((g) => g.paymentGroupId));
    const pending = await store.pageGroups(
      merchant,
      { pendingOnly: true, locationId: 1 },
      { pageNumber: 1, pageSize: 2 },
    );
    expect(pending.total).toBe(6);
  });
});

describe('defect "a payments page far past the end answered 500" (fuzz, seed 90210)', () => {
  test('pageNumber 999,999,999 reads a bounded Limit and answers an empty page with the true total', async () => {
    const { group, payments } = makeGroup(30);
    await store.createGroup(group, payments);
    const far = await payStore.pagePayments(group.paymentGroupId, { pageNumber: 999_999_999, pageSize: 500 });
    expect(far).toEqual({ payments: [], total: 30 });
    const last = await payStore.pagePayments(group.paymentGroupId, { pageNumber: 2, pageSize: 25 });
    expect(last.payments.map((p) => p.paymentId)).toEqual(payments.slice(25).map((p) => p.paymentId));
    expect(last.total).toBe(30);
  });
});
