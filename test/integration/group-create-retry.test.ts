/**
 * Defect "a retried group create lost payments" (the delivery bench, twice on a loaded machine): a
 * 10,000-payment create answered 503 at the function's timeout while it was still writing; the
 * client's retry with the same Idempotency-Key found the key's lease ended, took the first create
 * for abandoned and removed the payments written so far; the first create then committed its group
 * without them (3,761 and 1,624 of 10,000 kept). Against DynamoDB Local, through the core and the
 * idempotency layer: the first create is held mid-write (its batch writes paused) while the retry
 * (or a later sweep) runs, then let go.
 */
import { createGroup, sweepAbandonedCreates } from '#core/groups';
import { idempotent } from '#core/idempotency';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { ddb } from '#shared/ddb';
import { ConflictError } from '#shared/errors';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import type { Merchant } from '#store/merchants';
import { paymentStore } from '#store/payments';
import { groupStore } from '#store/groups';
import { ABANDONED_CREATE_MS, CREATE_LEASE_MS } from '#store/write-ahead';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectPause } from '#support/ddb-faults';
import { groupInput } from '#support/fixtures/inputs';
import { storedProfile } from '#support/sales';

let table: TestTable;
const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
/** Past 99: the written-ahead path, and no more (the tier shares one DynamoDB Local). */
const SIZE = 120;
const pauses: { remove(): void }[] = [];

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
});
afterEach(() => {
  for (const p of pauses.splice(0)) p.remove();
  useClock(undefined);
});
afterAll(() => table.drop());

async function input() {
  const profileId = await storedProfile(table, MID);
  const scheduleDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  return groupInput({
    servicePayId: MID,
    scheduleDate,
    payments: Array.from({ length: SIZE }, (_, i) => ({ profileId, amount: (i % 7) + 1 })),
  }) as never;
}

/** A latch: `wait` resolves once `open()` was called. */
function latch() {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((ok) => (open = ok));
  return { open, wait };
}

/**
 * Holds the first create's payment writes after its first two batches until `held` opens; and
 * when someone else first deletes the group item (the last step of removing a create), lets the first
 * create go and finish first (the interleaving that lost payments: its commit between the
 * removal's read of the payments and its delete of the group item).
 */
function slowFirstCreate(groupId: string, first: () => Promise<unknown>) {
  const held = latch();
  const reached = latch();
  let batches = 0;
  let removals = 0;
  const puts = (input: Record<string, unknown>) =>
    JSON.stringify(input.RequestItems ?? {}).includes('"PutRequest"');
  pauses.push(
    injectPause(ddb(), 'BatchWriteItemCommand', puts, () => {
      if (++batches <= 2) return Promise.resolve();
      reached.open();
      return held.wait;
    }),
    injectPause(
      ddb(),
      'DeleteItemCommand',
      // Once: the first create's own clean-up deletes it too.
      (input) => JSON.stringify(input.Key) === JSON.stringify(keys.group(groupId)) && ++removals === 1,
      async () => {
        held.open();
        await first().catch(() => undefined);
      },
    ),
  );
  return { reached: reached.wait, release: held.open };
}

/** The group's payment items as stored (strongly consistent): ids, counted once each. */
async function storedPaymentIds(groupId: string): Promise<string[]> {
  const { Items = [] } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
      ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':payment': keys.paymentPrefix },
      ConsistentRead: true,
    }),
  );
  return Items.map((i) => String(i.paymentId));
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('defect "a retried group create lost payments"', () => {
  test('a retry with the same key while the first create is still writing answers 409 in progress; the group keeps every payment, and a later retry replays it', async () => {
    const body = await input();
    const ref = { merchantId: MID, scope: 'group-create', key: `k-${newId()}` };
    const t0 = new Date();
    // The key's resource id (fixed at its first claim) is the group's.
    const groupId = newId();
    const create = (at: Date) =>
      idempotent(ref, body, at === t0 ? groupId : newId(), at, async (resourceId, resumed) => {
        const { group, payments } = await createGroup(body, MERCHANT, at, { resourceId, resumed });
        return { status: 201, body: { paymentGroupId: group.paymentGroupId, paymentCount: payments.length } };
      });
    let firstAnswer: Promise<unknown> = Promise.resolve();
    const gate = slowFirstCreate(groupId, () => firstAnswer);
    firstAnswer = create(t0);
    await gate.reached;

    // The retry, after the 503 at 27 s and the key's 30 s lease.
    const retry = await settle(create(new Date(t0.getTime() + 31_000)));
    gate.release();
    const first = await settle(firstAnswer);

    expect(await groupStore().getGroup(groupId)).toMatchObject({ status: 'pending', paymentCount: SIZE });
    const ids = await storedPaymentIds(groupId);
    expect(ids).toHaveLength(SIZE);
    expect(new Set(ids).size).toBe(SIZE);
    expect(await paymentStore().listPayments(groupId)).toHaveLength(SIZE);
    expect(first).toEqual({ value: { status: 201, body: { paymentGroupId: groupId, paymentCount: SIZE } } });
    expect(retry).toMatchObject({ error: expect.any(ConflictError) });
    expect(String((retry as { error: Error }).error?.message)).toMatch(/in progress/);

    // Once it is done, the same key replays the same group.
    expect(await create(new Date(t0.getTime() + 60_000))).toEqual({
      status: 201,
      body: { paymentGroupId: groupId, paymentCount: SIZE },
      replayed: true,
    });
  });

  test("a retry once the first create's lease is over removes it and creates the group again, with every payment once; the stalled first writer gives up", async () => {
    const body = await input();
    const ref = { merchantId: MID, scope: 'group-create', key: `k-${newId()}` };
    const t0 = new Date();
    const groupId = newId();
    const create = (at: Date, resourceId: string) =>
      idempotent(ref, body, resourceId, at, async (id, resumed) => {
        const { group, payments } = await createGroup(body, MERCHANT, at, { resourceId: id, resumed });
        return { status: 201, body: { paymentGroupId: group.paymentGroupId, paymentCount: payments.length } };
      });
    let firstAnswer: Promise<unknown> = Promise.resolve();
    const gate = slowFirstCreate(groupId, () => firstAnswer);
    firstAnswer = create(t0, groupId);
    await gate.reached;
    // The first writer stalls past its lease (a frozen container); the retry comes after it.
    const ahead = CREATE_LEASE_MS + 1000;
    useClock({ nowMs: () => Date.now() + ahead, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) });
    const retry = await settle(create(new Date(Date.now() + ahead), newId()));
    gate.release();
    const first = await settle(firstAnswer);

    expect(await groupStore().getGroup(groupId)).toMatchObject({ status: 'pending', paymentCount: SIZE });
    const ids = await storedPaymentIds(groupId);
    expect(ids).toHaveLength(SIZE);
    expect(new Set(ids).size).toBe(SIZE);
    expect(retry).toEqual({ value: { status: 201, body: { paymentGroupId: groupId, paymentCount: SIZE } } });
    expect(first).toMatchObject({ error: expect.objectContaining({ name: 'WriterOutOfTimeError' }) });
  });

  test('a sweep of abandoned creates while a stalled first create is mid-write: the writer gives up and nothing of it remains, never a group with fewer payments', async () => {
    const body = await input();
    const groupId = newId();
    const t0 = new Date();
    let firstAnswer: Promise<unknown> = Promise.resolve();
    const gate = slowFirstCreate(groupId, () => firstAnswer);
    firstAnswer = createGroup(body, MERCHANT, t0, { resourceId: groupId, resumed: false });
    await gate.reached;
    // The first create's writer stalls for longer than a create is ever left alone (a frozen container).
    const ahead = ABANDONED_CREATE_MS + 1000;
    useClock({ nowMs: () => Date.now() + ahead, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) });
    await sweepAbandonedCreates(new Date(Date.now() + ahead));
    gate.release();
    const first = await settle(firstAnswer);

    // The writer, past its budget, gave up and removed what it wrote: no group, no payment left
    // (the client's retry creates it afresh), never a group with some of its payments.
    const ids = await storedPaymentIds(groupId);
    const group = await groupStore().getGroup(groupId);
    expect({ group, payments: ids.length }).toEqual({ group: undefined, payments: 0 });
    expect(first).toMatchObject({ error: expect.objectContaining({ name: 'WriterOutOfTimeError' }) });
  });
});
