/** The processing side of the group store against DynamoDB Local: claims, the due index, batches. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { newGroup, newPayment, type Group, type Payment } from '#domain/groups';
import { emptyTotals, failedAuthResponse, type ProcessingSummary } from '#domain/processing';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { DynamoClaimStore } from '#store/claims';
import { DynamoDueIndex } from '#store/due';
import { DynamoGroupStore } from '#store/groups';
import { DynamoPaymentStore } from '#store/payments';
import { createTestTable, type TestTable } from '#support/ddb';
import { storedProfile } from '#support/sales';
import { changeGroupSettings, markGroupDeleted } from '#support/group-changes';

let table: TestTable;
let store: DynamoGroupStore;
let payStore: DynamoPaymentStore;
let claims: DynamoClaimStore;
let dueIndex: DynamoDueIndex;
const MERCHANT = '32350000001';
/** A stored method: every payment names one that exists (the create's fence checks it). */
let PROFILE: string;

beforeAll(async () => {
  table = await createTestTable();
  store = new DynamoGroupStore(table.db, table.tableName);
  payStore = new DynamoPaymentStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  dueIndex = new DynamoDueIndex(table.db, table.tableName);
  PROFILE = await storedProfile(table, MERCHANT);
});
afterAll(() => table.drop());

async function aGroup(
  payments = 0,
  date = '2031-06-01',
  hour = 10,
): Promise<{ group: Group; payments: Payment[] }> {
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: date, scheduleHour: hour, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const list = Array.from({ length: payments }, (_, i) =>
    newPayment({ profileId: PROFILE, amount: i + 1 }, group, newId(), now),
  );
  group.paymentCount = list.length;
  group.totalCents = list.reduce((s, p) => s + p.amountCents, 0);
  await store.createGroup(group, list);
  return { group, payments: list };
}

async function rawGroup(groupId: string) {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: keys.group(groupId), ConsistentRead: true }),
  );
  return Item!;
}

const summary = (approved: number): ProcessingSummary => ({
  ...emptyTotals(),
  approved,
  approvedCents: approved * 100,
  processedAt: new Date().toISOString(),
});

describe('claims', () => {
  test('of 20 concurrent claims exactly one wins; the others see the group processing', async () => {
    const { group } = await aGroup();
    const results = await Promise.all(Array.from({ length: 20 }, () => claims.claim(group, new Date())));
    const winners = results.filter((r) => r.claimed);
    expect(winners).toEqual([{ claimed: true, executionName: `pg-${group.paymentGroupId}-1` }]);
    for (const r of results.filter((x) => !x.claimed)) {
      expect(r).toMatchObject({
        claimed: false,
        group: { status: 'processing', executionName: `pg-${group.paymentGroupId}-1` },
      });
    }
    const stored = await rawGroup(group.paymentGroupId);
    expect(stored).toMatchObject({
      status: 'processing',
      executionName: `pg-${group.paymentGroupId}-1`,
      processingAttempt: 1,
    });
    expect(stored.claimedAt).toBeDefined();
    // A claimed group stays in the due index until it completes (a lost start is found again).
    expect(stored.gsi2pk).toBeDefined();
  });

  test('claiming a missing, deleted or processed group is refused', async () => {
    const missing = { ...(await aGroup()).group, paymentGroupId: newId() };
    expect(await claims.claim(missing, new Date())).toEqual({ claimed: false, group: undefined });
    const deleted = (await aGroup()).group;
    await markGroupDeleted(store, deleted.paymentGroupId);
    expect(await claims.claim(deleted, new Date())).toMatchObject({
      claimed: false,
      group: { status: 'deleted' },
    });
    const done = (await aGroup()).group;
    await claims.claim(done, new Date());
    await claims.complete(done.paymentGroupId, summary(0));
    expect(await claims.claim({ ...done, processingAttempt: 1 }, new Date())).toMatchObject({
      claimed: false,
      group: { status: 'processed' },
    });
  });

  test('releaseClaim undoes only our own claim', async () => {
    const { group } = await aGroup();
    const mine = `pg-${group.paymentGroupId}-1`;
    const next = `pg-${group.paymentGroupId}-2`;
    expect(await claims.claim(group, new Date())).toEqual({ claimed: true, executionName: mine });
    await claims.releaseClaim(group, 'someone-else', new Date());
    expect(await rawGroup(group.paymentGroupId)).toMatchObject({
      status: 'processing',
      executionName: mine,
    });
    await claims.releaseClaim(group, mine, new Date());
    const released = await rawGroup(group.paymentGroupId);
    expect(released.status).toBe('pending');
    expect(released.executionName).toBeUndefined();
    expect(released.claimedAt).toBeUndefined();
    // The attempt stays counted: a released attempt's name is never used again.
    expect(released.processingAttempt).toBe(1);
    // Released twice: nothing happens; a new claim (of the group as read now) is the next attempt.
    await claims.releaseClaim(group, mine, new Date());
    expect(await claims.claim({ ...group, processingAttempt: 1 }, new Date())).toEqual({
      claimed: true,
      executionName: next,
    });
    // A stale release of the earlier claim does not undo the new one.
    await claims.releaseClaim(group, mine, new Date());
    expect(await rawGroup(group.paymentGroupId)).toMatchObject({
      status: 'processing',
      executionName: next,
    });
    // Nor does a release undo a completed group.
    await claims.complete(group.paymentGroupId, summary(1));
    await claims.releaseClaim(group, next, new Date());
    expect((await rawGroup(group.paymentGroupId)).status).toBe('processed');
  });

  test('complete moves processing to processed with the summary and leaves the due index, once', async () => {
    const { group } = await aGroup();
    // Not claimed: complete changes nothing.
    await claims.complete(group.paymentGroupId, summary(9));
    expect(await rawGroup(group.paymentGroupId)).toMatchObject({ status: 'pending' });
    expect((await rawGroup(group.paymentGroupId)).processingSummary).toBeUndefined();
    await claims.claim(group, new Date());
    const first = summary(3);
    await claims.complete(group.paymentGroupId, first);
    const done = await rawGroup(group.paymentGroupId);
    expect(done).toMatchObject({
      status: 'processed',
      processingSummary: first,
      lastUpdated: first.processedAt,
    });
    expect(done.gsi2pk).toBeUndefined();
    expect(done.gsi2sk).toBeUndefined();
    expect(done.gsi1pk).toBeDefined();
    // A retried completion keeps the first summary.
    await claims.complete(group.paymentGroupId, summary(7));
    expect((await rawGroup(group.paymentGroupId)).processingSummary).toEqual(first);
  });
});

describe('issue 13: claims by slot and attempt', () => {
  // Defect 3: the tick read the due index (eventually consistent) before a PUT moved the group;
  // the stale read is injected as the group the tick saw, and its claim must lose.
  test('defect 3: a rescheduled group is not claimed at its old slot (stale due-index read)', async () => {
    const { group } = await aGroup(0, '2031-07-01', 10);
    const [seenByTick] = (await dueIndex.dueGroups('2031-07-01T10')).filter(
      (g) => g.paymentGroupId === group.paymentGroupId,
    );
    expect(seenByTick).toMatchObject({ status: 'pending', scheduleHour: 10 });
    await changeGroupSettings(store, group.paymentGroupId, { scheduleHour: 15 }); // the PUT answered 200 pending
    expect(await claims.claim(seenByTick!, new Date())).toMatchObject({
      claimed: false,
      group: { status: 'pending', scheduleHour: 15 },
    });
    expect(await rawGroup(group.paymentGroupId)).toMatchObject({ status: 'pending', scheduleHour: 15 });
    // At its new slot it is claimed.
    expect((await claims.claim({ ...group, scheduleHour: 15 }, new Date())).claimed).toBe(true);
  });

  test('defect 6: a re-drive is the next attempt, once, and only while the group is due', async () => {
    const { group } = await aGroup();
    await claims.claim(group, new Date());
    const first = `pg-${group.paymentGroupId}-1`;
    await claims.recordExecution(group.paymentGroupId, first, 'arn:exec:1');
    expect(await claims.read(group.paymentGroupId)).toMatchObject({ executionArn: 'arn:exec:1', due: true });
    const seen = { paymentGroupId: group.paymentGroupId, executionName: first };
    const [a, b] = await Promise.all([claims.redrive(seen, new Date()), claims.redrive(seen, new Date())]);
    expect([a, b].filter(Boolean)).toEqual([`pg-${group.paymentGroupId}-2`]);
    const raw = await rawGroup(group.paymentGroupId);
    expect(raw).toMatchObject({ status: 'processing', processingAttempt: 2 });
    expect(raw.executionArn).toBeUndefined();
    // A late record of the superseded attempt's ARN is ignored.
    await claims.recordExecution(group.paymentGroupId, first, 'arn:exec:1');
    expect((await rawGroup(group.paymentGroupId)).executionArn).toBeUndefined();
    await claims.complete(group.paymentGroupId, summary(0));
    expect(
      await claims.redrive({ ...seen, executionName: `pg-${group.paymentGroupId}-2` }, new Date()),
    ).toBeUndefined();
  });

  test('defect 9: a processed group with receipts to send stays due until they are queued', async () => {
    const { group } = await aGroup();
    await claims.claim(group, new Date());
    await claims.complete(group.paymentGroupId, { ...summary(1), settlesAt: '2031-01-01T00:30:00.000Z' });
    expect(await claims.read(group.paymentGroupId)).toMatchObject({ status: 'processed', due: true });
    // An execution that closed now is re-driven for the receipts.
    const next = await claims.redrive(
      { paymentGroupId: group.paymentGroupId, executionName: `pg-${group.paymentGroupId}-1` },
      new Date(),
    );
    expect(next).toBe(`pg-${group.paymentGroupId}-2`);
    await claims.receiptsQueued(group.paymentGroupId, new Date().toISOString());
    const done = await rawGroup(group.paymentGroupId);
    expect(done.gsi2pk).toBeUndefined();
    expect(done.receiptsQueuedAt).toBeDefined();
    expect(
      await claims.redrive({ paymentGroupId: group.paymentGroupId, executionName: next }, new Date()),
    ).toBeUndefined();
  });
});

describe('dueGroups', () => {
  const date = '2031-05-04';
  const made: Record<string, Group> = {};
  beforeAll(async () => {
    const at = async (name: string, d: string, hour: number) => {
      made[name] = (await aGroup(0, d, hour)).group;
    };
    await at('earlierDay', '2031-05-03', 23);
    await at('earlier', date, 5);
    await at('sameSlot', date, 7);
    await at('claimed', date, 7);
    await at('later', date, 8);
    await at('nextDay', '2031-05-05', 0);
    await at('processed', date, 6);
    await at('deleted', date, 6);
    await at('movedLater', date, 6);
    await at('movedEarlier', date, 9);
    for (let i = 0; i < 12; i++) await at(`many${i}`, date, 3);
    await claims.claim(made.claimed!, new Date());
    await claims.claim(made.processed!, new Date());
    await claims.complete(made.processed!.paymentGroupId, summary(1));
    await markGroupDeleted(store, made.deleted!.paymentGroupId);
    await changeGroupSettings(store, made.movedLater!.paymentGroupId, { scheduleHour: 12 });
    await changeGroupSettings(store, made.movedEarlier!.paymentGroupId, { scheduleHour: 4 });
  });

  const due = async (slot: string) => {
    const ours = new Map(Object.entries(made).map(([name, g]) => [g.paymentGroupId, name]));
    const found = (await dueIndex.dueGroups(slot)).filter((g) => ours.has(g.paymentGroupId));
    return { names: found.map((g) => ours.get(g.paymentGroupId)!).sort(), found };
  };
  const many = Array.from({ length: 12 }, (_, i) => `many${i}`);

  test('returns pending and claimed groups of the slot and earlier slots, from every shard', async () => {
    const { names, found } = await due(`${date}T07`);
    expect(names).toEqual(['claimed', 'earlier', 'earlierDay', ...many, 'movedEarlier', 'sameSlot'].sort());
    expect(found.find((g) => g.paymentGroupId === made.claimed!.paymentGroupId)).toMatchObject({
      status: 'processing',
      executionName: `pg-${made.claimed!.paymentGroupId}-1`,
      merchantId: MERCHANT,
      scheduleDate: date,
      scheduleHour: 7,
    });
    expect(found.find((g) => g.paymentGroupId === made.earlier!.paymentGroupId)).toMatchObject({
      status: 'pending',
    });
    // The 12 groups of one slot spread over more than one shard, and all are found.
    const shards = new Set(many.map((n) => keys.dueShard(made[n]!.paymentGroupId)));
    expect(shards.size).toBeGreaterThan(1);
  });

  test('excludes later slots, processed and deleted groups, and follows schedule changes', async () => {
    // 'claimed' was claimed now, years before its slot: it sorts by its claim's hour, so every tick
    // from now on returns it for supervision, whatever the tick's slot (issue 25, defect 7).
    expect((await due(`${date}T04`)).names).toEqual(
      ['claimed', 'earlierDay', ...many, 'movedEarlier'].sort(),
    );
    expect((await due(`${date}T02`)).names).toEqual(['claimed', 'earlierDay']);
    expect((await due('2031-05-03T22')).names).toEqual(['claimed']);
    const all = (await due('2031-05-06T00')).names;
    expect(all).toContain('later');
    expect(all).toContain('nextDay');
    expect(all).toContain('movedLater');
    expect(all).not.toContain('processed');
    expect(all).not.toContain('deleted');
    expect((await due(`${date}T11`)).names).not.toContain('movedLater');
    expect((await due(`${date}T12`)).names).toContain('movedLater');
  });
});

describe('batches of payments', () => {
  async function pages(groupId: string, limit: number) {
    const seen: Payment[][] = [];
    let cursor: string | null = null;
    do {
      const page: { payments: Payment[]; cursor: string | null } = await payStore.paymentsAfter(
        groupId,
        cursor,
        limit,
      );
      seen.push(page.payments);
      cursor = page.cursor;
      expect(seen.length).toBeLessThan(20);
    } while (cursor);
    return seen;
  }

  test('paymentsAfter pages through the payments in sort-key order with a cursor', async () => {
    const { group, payments } = await aGroup(7);
    await payStore.softDeletePayment(payments[2]!, new Date());
    const seen = await pages(group.paymentGroupId, 3);
    expect(seen.map((p) => p.length).slice(0, 3)).toEqual([3, 3, 1]);
    const ids = seen.flat().map((p) => p.paymentId);
    const sorted = payments.map((p) => p.paymentId).sort();
    expect(ids).toEqual(sorted);
    // Deleted payments are in the batches (the handler skips and counts them).
    expect(seen.flat().find((p) => p.paymentId === payments[2]!.paymentId)?.deleted).toBe(true);
    // The cursor is the last sort key of the page: the next page starts after it.
    const first = await payStore.paymentsAfter(group.paymentGroupId, null, 3);
    expect(first.cursor).toBe(keys.payment(group.paymentGroupId, sorted[2]!).sk);
    const second = await payStore.paymentsAfter(group.paymentGroupId, first.cursor, 3);
    expect(second.payments.map((p) => p.paymentId)).toEqual(sorted.slice(3, 6));
  });

  test('an exact multiple of the limit ends with an empty page', async () => {
    const { group, payments } = await aGroup(6);
    const seen = await pages(group.paymentGroupId, 3);
    expect(seen.flat().map((p) => p.paymentId)).toEqual(payments.map((p) => p.paymentId).sort());
    expect(seen.at(-1)!.length).toBeLessThanOrEqual(3);
    const empty = await aGroup(0);
    expect(await payStore.paymentsAfter(empty.group.paymentGroupId, null, 3)).toEqual({
      payments: [],
      cursor: null,
    });
  });

  /** A distinct authResponse per writer: its message names the writer. */
  const answer = (n: number) => failedAuthResponse({ amountCents: 100 }, `writer ${n}`, new Date(0));

  test('setAuthResponse writes once', async () => {
    const { group, payments } = await aGroup(2);
    const [p, q] = payments as [Payment, Payment];
    expect(await payStore.setAuthResponse(p, answer(1), new Date())).toBe(true);
    expect(await payStore.setAuthResponse(p, answer(2), new Date())).toBe(false);
    expect((await payStore.getPayment(group.paymentGroupId, p.paymentId))?.authResponse).toEqual(answer(1));
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, n) => payStore.setAuthResponse(q, answer(n), new Date())),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);
    const winner = racing.indexOf(true);
    expect((await payStore.getPayment(group.paymentGroupId, q.paymentId))?.authResponse).toEqual(
      answer(winner),
    );
  });
});
