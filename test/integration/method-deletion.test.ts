/**
 * Safe deletion of saved methods and payors against DynamoDB Local (issue 21 item 1; DESIGN
 * section 5 "The card lifecycle"; docs/architecture.md "Safe method deletion"): the 409 listing
 * the pending payments, `replaceWith` moving them, a crash in the middle finished by the sweeper
 * (no payment ever names a deleted method), and deletions racing payments that take the method.
 */
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addMethod } from '#core/payors';
import { deleteMethod, deletePayor, sweepDeletions } from '#core/method-deletion';
import { MethodInUseError } from '#core/method-in-use';
import { newPayment, type Payment } from '#domain/groups';
import { parseProfileId, type SavedMethod } from '#domain/payors';
import { useClock } from '#shared/clock';
import { reloadConfigForTests } from '#shared/config';
import { BadRequestError, ConflictError } from '#shared/errors';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { DynamoGroupStore } from '#store/groups';
import { DELETION_SWEEP_AFTER_SECONDS } from '#domain/method-deletions';
import { MethodDeletionStore, MOVE_BATCH } from '#store/method-deletions';
import { backfillMethodUses } from '#store/method-uses-backfill';
import { DynamoPaymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { READ_LIMITS } from '#store/read-limits';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeGroup, makeMethod, makePayor } from '#support/fixtures/index';
import { markGroupDeleted } from '#support/group-changes';

let table: TestTable;
let groups: DynamoGroupStore;
let paymentsStore: DynamoPaymentStore;
const MERCHANT = '32350000001';
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  table = await createTestTable();
  // The deletions run on the container's stores: this table.
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  paymentsStore = new DynamoPaymentStore(table.db, table.tableName);
});
afterAll(() => table.drop());
afterEach(() => jest.restoreAllMocks());

/** A stored payor with `count` methods (the first the default). */
async function payorWith(count: number): Promise<{ payorId: string; methods: SavedMethod[] }> {
  const { payor, method } = makePayor(MERCHANT);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const methods = [method];
  for (let i = 1; i < count; i++) {
    const m = makeMethod(payor.payorId, MERCHANT);
    await addMethod(m, false, new Date());
    methods.push(m);
  }
  return { payorId: payor.payorId, methods };
}

const profileOf = (m: SavedMethod) => `${m.payorId}/${m.savedPaymentMethodId}`;

/** A stored pending group of `count` payments on `profileId`. */
async function pendingGroup(count: number, profileId: string) {
  const { group, payments } = makeGroup(count, { scheduleDate: tomorrow(), merchantId: MERCHANT, profileId });
  await groups.createGroup(group, payments);
  return { group, payments };
}

const setGroupStatus = (groupId: string, status: string) =>
  table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.group(groupId),
      UpdateExpression: 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': status },
    }),
  );

const methodItem = async (m: SavedMethod) =>
  (
    await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.method(m.payorId, m.savedPaymentMethodId),
        ConsistentRead: true,
      }),
    )
  ).Item;

const usesOf = async (methodId: string) =>
  (
    await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.methodUses(methodId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const methodIdsOf = async (payments: readonly Payment[]) =>
  Promise.all(
    payments.map(async (p) => {
      const now = await paymentsStore.getPayment(p.paymentGroupId, p.paymentId);
      return parseProfileId(now!.profileId).savedPaymentMethodId;
    }),
  );

describe('a method that pending payments use', () => {
  test('is not deleted: 409 listing those payments (not the deleted, processed or moved ones); nothing changes', async () => {
    const { payorId, methods } = await payorWith(2);
    const [used] = methods;
    const pending = await pendingGroup(3, profileOf(used!));
    const processed = await pendingGroup(2, profileOf(used!));
    await setGroupStatus(processed.group.paymentGroupId, 'processed');
    const deletedGroup = await pendingGroup(1, profileOf(used!));
    expect(await markGroupDeleted(groups, deletedGroup.group.paymentGroupId)).toBe(true);

    const refused = await deleteMethod(
      payorId,
      used!.savedPaymentMethodId,
      MERCHANT,
      undefined,
      new Date(),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MethodInUseError);
    const error = refused as MethodInUseError;
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/used by 3 pending payment\(s\).*replaceWith/);
    const listed = (error.details!.payments as { paymentId: string }[]).map((p) => p.paymentId).sort();
    expect(listed).toEqual(pending.payments.map((p) => p.paymentId).sort());
    expect(error.details!.payments).toContainEqual({
      paymentGroupId: pending.group.paymentGroupId,
      paymentId: pending.payments[0]!.paymentId,
    });
    // Nothing changed: the method is there without a mark, no record is left.
    const item = await methodItem(used!);
    expect(item).toBeDefined();
    expect(item).not.toHaveProperty('deletion');
    expect(
      await new MethodDeletionStore(table.db, table.tableName).find(payorId, {
        methodId: used!.savedPaymentMethodId,
      }),
    ).toBeUndefined();
    // The settled uses (processed and deleted groups) were pruned when listed.
    expect((await usesOf(used!.savedPaymentMethodId)).map((u) => u.paymentId).sort()).toEqual(listed);
  });

  test('lists at most 100 payments, and says there are more', async () => {
    const { payorId, methods } = await payorWith(2);
    await pendingGroup(120, profileOf(methods[0]!));
    const error = (await deleteMethod(
      payorId,
      methods[0]!.savedPaymentMethodId,
      MERCHANT,
      undefined,
      new Date(),
    ).catch((e: unknown) => e)) as MethodInUseError;
    expect(error).toBeInstanceOf(MethodInUseError);
    expect(error.details!.payments).toHaveLength(100);
  });

  test('a payor whose methods are in use is not deleted either (409 with the payments)', async () => {
    const { payorId, methods } = await payorWith(2);
    const { payments } = await pendingGroup(2, profileOf(methods[1]!));
    const error = (await deletePayor(payorId, MERCHANT, new Date()).catch(
      (e: unknown) => e,
    )) as MethodInUseError;
    expect(error).toBeInstanceOf(MethodInUseError);
    expect((error.details!.payments as { paymentId: string }[]).map((p) => p.paymentId).sort()).toEqual(
      payments.map((p) => p.paymentId).sort(),
    );
    for (const m of methods) expect(await methodItem(m)).not.toHaveProperty('deletion');
  });

  test.each(['a plain DELETE', 'a DELETE with replaceWith', 'a payor DELETE'] as const)(
    'defect: a method with more settled uses than one listing reads (older groups, processed since) was deleted although a newer pending payment used it: %s still finds that payment',
    async (kind) => {
      const { payorId, methods } = await payorWith(2);
      const profileId = profileOf(methods[0]!);
      const old = await pendingGroup(READ_LIMITS.methodUses + 1, profileId);
      await setGroupStatus(old.group.paymentGroupId, 'processed');
      const { group, payments } = await pendingGroup(1, profileId);
      const [payment] = payments;
      expect(group.paymentGroupId > old.group.paymentGroupId).toBe(true);
      const methodId = methods[0]!.savedPaymentMethodId;

      if (kind === 'a DELETE with replaceWith') {
        const replacement = methods[1]!.savedPaymentMethodId;
        const outcome = await deleteMethod(payorId, methodId, MERCHANT, replacement, new Date());
        expect(outcome).toMatchObject({ status: 'deleted' });
        const moved = await paymentsStore.getPayment(group.paymentGroupId, payment!.paymentId);
        expect(parseProfileId(moved!.profileId).savedPaymentMethodId).toBe(replacement);
        return;
      }
      const error = await (
        kind === 'a plain DELETE'
          ? deleteMethod(payorId, methodId, MERCHANT, undefined, new Date())
          : deletePayor(payorId, MERCHANT, new Date())
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MethodInUseError);
      expect((error as MethodInUseError).details!.payments).toEqual([
        expect.objectContaining({ paymentId: payment!.paymentId }),
      ]);
      expect(await methodItem(methods[0]!)).not.toHaveProperty('deletion');
    },
    60_000,
  );

  test('a plain DELETE that cannot check every use within its request answers 409 and keeps the method; the same DELETE again goes on and deletes it', async () => {
    const { payorId, methods } = await payorWith(2);
    const old = await pendingGroup(READ_LIMITS.methodUses + 1, profileOf(methods[0]!));
    await setGroupStatus(old.group.paymentGroupId, 'processed');
    const methodId = methods[0]!.savedPaymentMethodId;
    // Each reading of the clock six seconds later: the request's budget is spent after one listing.
    let now = Date.now();
    useClock({ nowMs: () => (now += 6_000), sleep: async () => undefined });
    const error = await deleteMethod(payorId, methodId, MERCHANT, undefined, new Date())
      .catch((e: unknown) => e)
      .finally(() => useClock(undefined));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/more uses than one request checks; retry/);
    expect(await methodItem(methods[0]!)).not.toHaveProperty('deletion');

    expect(await deleteMethod(payorId, methodId, MERCHANT, undefined, new Date())).toMatchObject({
      status: 'deleted',
    });
  }, 60_000);

  test('replaceWith moves them (in several transactions) and deletes the method, the replacement becoming the default', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const count = 2 * MOVE_BATCH + 3;
    const { group, payments } = await pendingGroup(count, profileOf(old!));
    const before = await groups.getGroup(group.paymentGroupId);
    // The request's move budget is wall-clock time (REQUEST_MOVE_BUDGET_MS): a loaded CI machine
    // once took longer than that for the three transactions, and the request rightly answered
    // 202. This test is about the moves, not the budget (the next describe's is): its clock stands.
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start);

    await expect(
      deleteMethod(
        payorId,
        old!.savedPaymentMethodId,
        MERCHANT,
        replacement!.savedPaymentMethodId,
        new Date(),
      ),
    ).resolves.toEqual({ status: 'deleted' });
    jest.restoreAllMocks();

    expect(await methodItem(old!)).toBeUndefined();
    expect(new Set(await methodIdsOf(payments))).toEqual(new Set([replacement!.savedPaymentMethodId]));
    // Each move announced: the payment's event sequence moved on.
    const moved = await paymentsStore.getPayment(group.paymentGroupId, payments[0]!.paymentId);
    expect(moved!.eventSeq).toBe((payments[0]!.eventSeq ?? 0) + 1);
    // Totals untouched; uses follow the payments; the payor's default is the replacement.
    expect(await groups.getGroup(group.paymentGroupId)).toMatchObject({
      paymentCount: before!.paymentCount,
      totalCents: before!.totalCents,
    });
    expect(await usesOf(old!.savedPaymentMethodId)).toHaveLength(0);
    expect(await usesOf(replacement!.savedPaymentMethodId)).toHaveLength(count);
    const found = await new DynamoPayorStore(table.db, table.tableName).find(payorId, MERCHANT);
    expect(found!.payor).toMatchObject({
      defaultPaymentMethodId: replacement!.savedPaymentMethodId,
      methodCount: 1,
    });
  });

  test('replaceWith must be another method of the same payor (400), and payments of a group being processed cannot move (409)', async () => {
    const { payorId, methods } = await payorWith(2);
    const other = await payorWith(1);
    const [old, replacement] = methods;
    const del = (replaceWith: string) =>
      deleteMethod(payorId, old!.savedPaymentMethodId, MERCHANT, replaceWith, new Date());
    await expect(del(old!.savedPaymentMethodId)).rejects.toThrow(BadRequestError);
    await expect(del(other.methods[0]!.savedPaymentMethodId)).rejects.toThrow(
      /names no saved payment method of this payor/,
    );

    const { group } = await pendingGroup(2, profileOf(old!));
    await setGroupStatus(group.paymentGroupId, 'processing');
    const error = (await del(replacement!.savedPaymentMethodId).catch((e: unknown) => e)) as MethodInUseError;
    expect(error).toBeInstanceOf(MethodInUseError);
    expect(error.message).toMatch(/being processed/);
    expect(error.details!.payments).toHaveLength(2);
    expect(await methodItem(old!)).not.toHaveProperty('deletion');
  });
});

describe('a deletion cut off in the middle', () => {
  test('a move that outlasts the request budget answers accepted (202); the same DELETE again finishes it', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const { payments } = await pendingGroup(3 * MOVE_BATCH, profileOf(old!));
    // The first move transaction takes the request past its budget.
    const real = MethodDeletionStore.prototype.movePayments;
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now');
    jest.spyOn(MethodDeletionStore.prototype, 'movePayments').mockImplementation(async function (
      this: MethodDeletionStore,
      ...args
    ) {
      const done = await real.apply(this, args);
      clock.mockReturnValue(start + 60_000);
      return done;
    });
    const del = () =>
      deleteMethod(
        payorId,
        old!.savedPaymentMethodId,
        MERCHANT,
        replacement!.savedPaymentMethodId,
        new Date(),
      );
    await expect(del()).resolves.toEqual({ status: 'accepted', movedCount: MOVE_BATCH });
    jest.restoreAllMocks();
    expect(await methodItem(old!)).toHaveProperty('deletion');
    await expect(del()).resolves.toEqual({ status: 'deleted' });
    expect(await methodItem(old!)).toBeUndefined();
    expect(new Set(await methodIdsOf(payments))).toEqual(new Set([replacement!.savedPaymentMethodId]));
  });

  test('a crash after the first batch of moves: no payment names a deleted method; the method takes no new payment; the sweeper finishes the move', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const { group, payments } = await pendingGroup(3 * MOVE_BATCH, profileOf(old!));
    // The process dies after the first move transaction.
    const real = MethodDeletionStore.prototype.movePayments;
    let calls = 0;
    jest.spyOn(MethodDeletionStore.prototype, 'movePayments').mockImplementation(async function (
      this: MethodDeletionStore,
      ...args
    ) {
      if (++calls > 1) throw new Error('crash: the Lambda was stopped');
      return real.apply(this, args);
    });
    const started = new Date();
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MERCHANT, replacement!.savedPaymentMethodId, started),
    ).rejects.toThrow('crash');
    jest.restoreAllMocks();

    // Half moved: every payment names a method that exists.
    const ids = await methodIdsOf(payments);
    expect(ids.filter((id) => id === replacement!.savedPaymentMethodId)).toHaveLength(MOVE_BATCH);
    expect(await methodItem(old!)).toHaveProperty('deletion');
    // The fence: no payment may take the method meanwhile.
    const added = newPayment({ profileId: profileOf(old!), amount: 5 }, group, newId(), new Date());
    expect(await paymentsStore.addPayment(added, new Date())).toBe('method-unavailable');

    // Before its due time the sweeper leaves it (the request might still be running) ...
    expect(await sweepDeletions(new Date())).toEqual([]);
    // ... after it, the sweeper finishes the move.
    const later = new Date(started.getTime() + (DELETION_SWEEP_AFTER_SECONDS + 1) * 1000);
    const swept = await sweepDeletions(later);
    expect(swept).toContainEqual({ payorId, methodIds: [old!.savedPaymentMethodId], result: 'deleted' });
    expect(await methodItem(old!)).toBeUndefined();
    expect(new Set(await methodIdsOf(payments))).toEqual(new Set([replacement!.savedPaymentMethodId]));
  });

  test('a plain deletion cut off after its mark is undone by the sweeper (the client never heard it done); the same DELETE again finishes it', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old] = methods;
    // The process dies at its last step: neither the deletion nor its undo is written.
    jest.spyOn(MethodDeletionStore.prototype, 'finishMethod').mockRejectedValue(new Error('crash'));
    jest.spyOn(MethodDeletionStore.prototype, 'undo').mockRejectedValueOnce(new Error('crash'));
    const started = new Date();
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MERCHANT, undefined, started),
    ).rejects.toThrow('crash');
    jest.restoreAllMocks();
    expect(await methodItem(old!)).toHaveProperty('deletion');
    // A DELETE of its payor meanwhile is told to wait, with the truth.
    await expect(deletePayor(payorId, MERCHANT, started)).rejects.toThrow(/being deleted by another request/);
    const later = new Date(started.getTime() + (DELETION_SWEEP_AFTER_SECONDS + 1) * 1000);
    expect(await sweepDeletions(later)).toContainEqual({
      payorId,
      methodIds: [old!.savedPaymentMethodId],
      result: 'undone',
    });
    expect(await methodItem(old!)).not.toHaveProperty('deletion');
    // A client's retry of the same DELETE (here after the sweep) deletes it.
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MERCHANT, undefined, later),
    ).resolves.toEqual({
      status: 'deleted',
    });
  });
});

describe('under concurrency', () => {
  test('8 payments taking the method while it is deleted with replaceWith: none is left on the deleted method', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const { group, payments } = await pendingGroup(20, profileOf(old!));
    const adds = Array.from({ length: 8 }, () =>
      newPayment({ profileId: profileOf(old!), amount: 3 }, group, newId(), new Date()),
    );
    const [deletion, ...outcomes] = await Promise.all([
      deleteMethod(
        payorId,
        old!.savedPaymentMethodId,
        MERCHANT,
        replacement!.savedPaymentMethodId,
        new Date(),
      ),
      ...adds.map((p) => paymentsStore.addPayment(p, new Date())),
    ]);
    expect(deletion).toEqual({ status: 'deleted' });
    for (const outcome of outcomes) expect(['ok', 'method-unavailable']).toContain(outcome);
    const written = adds.filter((_, i) => outcomes[i] === 'ok');
    // Every payment written (before the deletion's mark) was moved; the refused ones are absent.
    expect(new Set(await methodIdsOf([...payments, ...written]))).toEqual(
      new Set([replacement!.savedPaymentMethodId]),
    );
    for (const p of adds.filter((_, i) => outcomes[i] !== 'ok'))
      expect(await paymentsStore.getPayment(p.paymentGroupId, p.paymentId)).toBeUndefined();
  });

  test('deleting every method of a payor at once: all but one go, the last is refused (400) and keeps no mark', async () => {
    const { payorId, methods } = await payorWith(4);
    const results = await Promise.allSettled(
      methods.map((m) => deleteMethod(payorId, m.savedPaymentMethodId, MERCHANT, undefined, new Date())),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(BadRequestError);
    const left = await Promise.all(methods.map(methodItem));
    const kept = left.filter((i) => i !== undefined);
    expect(kept).toHaveLength(1);
    expect(kept[0]).not.toHaveProperty('deletion');
    const found = await new DynamoPayorStore(table.db, table.tableName).find(payorId, MERCHANT);
    expect(found!.payor).toMatchObject({
      defaultPaymentMethodId: kept[0]!.savedPaymentMethodId,
      methodCount: 1,
    });
  });

  test('8 concurrent DELETEs of one method: one deletes it, each other answers what happened (404 gone, or 409 under way)', async () => {
    const { payorId, methods } = await payorWith(2);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        deleteMethod(payorId, methods[0]!.savedPaymentMethodId, MERCHANT, undefined, new Date()),
      ),
    );
    const done = results.filter((r) => r.status === 'fulfilled');
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const r of results) {
      if (r.status === 'fulfilled') expect(r.value).toEqual({ status: 'deleted' });
      else {
        const e = r.reason as { status?: number };
        expect([404, 409]).toContain(e.status);
        if (e.status === 409) expect(r.reason).toBeInstanceOf(ConflictError);
      }
    }
    expect(await methodItem(methods[0]!)).toBeUndefined();
    expect(await methodItem(methods[1]!)).toBeDefined();
  });
});

describe('the replacement of a deletion under way', () => {
  test('defect: the replacement deleted while a replaceWith deletion was under way left the payor’s only method marked for deletion for good (the sweeper failed on it at every run); its DELETE is refused (409) and the sweeper finishes the move', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const { payments } = await pendingGroup(2, profileOf(old!));
    // DELETE old?replaceWith=replacement dies at its last step (its mark and record are written).
    jest.spyOn(MethodDeletionStore.prototype, 'finishMethod').mockRejectedValueOnce(new Error('crash'));
    const started = new Date();
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MERCHANT, replacement!.savedPaymentMethodId, started),
    ).rejects.toThrow('crash');
    jest.restoreAllMocks();
    expect(await methodItem(old!)).toHaveProperty('deletion');

    // The replacement's own DELETE is refused, naming the deletion it serves; nothing is written.
    const refused = deleteMethod(payorId, replacement!.savedPaymentMethodId, MERCHANT, undefined, started);
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toThrow(
      `is the replacement of saved payment method ${old!.savedPaymentMethodId}, whose deletion is under way`,
    );
    expect(await methodItem(replacement!)).not.toHaveProperty('deletion');

    const later = new Date(started.getTime() + (DELETION_SWEEP_AFTER_SECONDS + 1) * 1000);
    const swept = await sweepDeletions(later);
    expect(swept.map((r) => r.result)).toEqual(['deleted']);
    expect(await methodItem(old!)).toBeUndefined();
    expect(new Set(await methodIdsOf(payments))).toEqual(new Set([replacement!.savedPaymentMethodId]));
    // Then it can go like any other method.
    const third = makeMethod(payorId, MERCHANT);
    await addMethod(third, false, new Date());
    await expect(
      deleteMethod(
        payorId,
        replacement!.savedPaymentMethodId,
        MERCHANT,
        third.savedPaymentMethodId,
        new Date(),
      ),
    ).resolves.toEqual({ status: 'deleted' });
  });

  test('a deletion of the replacement begun on a read from before the replaceWith deletion’s mark is refused by the mark’s transaction (the replacement’s revision moved)', async () => {
    const { payorId, methods } = await payorWith(3);
    const [old, replacement] = methods;
    const store = new MethodDeletionStore(table.db, table.tableName);
    const readBefore = (await methodItem(replacement!)) as SavedMethod;
    const mark = (replaceWith?: string) => ({
      token: newId(),
      startedAt: new Date().toISOString(),
      ...(replaceWith !== undefined && { replaceWith }),
    });
    expect(
      await store.begin(
        {
          merchantId: MERCHANT,
          payorId,
          methodIds: [old!.savedPaymentMethodId],
          mark: mark(replacement!.savedPaymentMethodId),
        },
        [(await methodItem(old!)) as SavedMethod],
      ),
    ).toBe('ok');
    expect(
      await store.begin(
        { merchantId: MERCHANT, payorId, methodIds: [replacement!.savedPaymentMethodId], mark: mark() },
        [readBefore],
      ),
    ).toBe('changed');
    expect(await methodItem(replacement!)).not.toHaveProperty('deletion');
  });
});

describe('the migration of payments created before uses existed (backfill-method-uses)', () => {
  test('writes the use of each unanswered payment of a pending group, so its method is not deleted; reports a method already gone; repeats safely', async () => {
    const { payorId, methods } = await payorWith(2);
    const [used] = methods;
    const { group, payments } = await pendingGroup(3, profileOf(used!));
    // As a payment of the previous version: no uses. One payment answered, one deleted.
    const forget = async (methodId: string) => {
      for (const u of await usesOf(methodId))
        await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { pk: u.pk, sk: u.sk } }));
    };
    await forget(used!.savedPaymentMethodId);
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.payment(group.paymentGroupId, payments[0]!.paymentId),
        UpdateExpression: 'SET authResponse = :a',
        ExpressionAttributeValues: { ':a': { status: 'Declined' } },
      }),
    );
    expect(await paymentsStore.softDeletePayment(payments[1]!, new Date())).toBe('ok');
    // A legacy payment whose method was deleted before the migration.
    const gone = await payorWith(2);
    const orphan = await pendingGroup(1, profileOf(gone.methods[0]!));
    await forget(gone.methods[0]!.savedPaymentMethodId);
    await expect(
      deleteMethod(gone.payorId, gone.methods[0]!.savedPaymentMethodId, MERCHANT, undefined, new Date()),
    ).resolves.toEqual({ status: 'deleted' });

    const first = await backfillMethodUses(table.db, table.tableName);
    expect(first.atRisk).toContain(`${orphan.group.paymentGroupId}/${orphan.payments[0]!.paymentId}`);
    expect((await usesOf(used!.savedPaymentMethodId)).map((u) => u.paymentId)).toEqual([
      payments[2]!.paymentId,
    ]);
    const error = (await deleteMethod(
      payorId,
      used!.savedPaymentMethodId,
      MERCHANT,
      undefined,
      new Date(),
    ).catch((e: unknown) => e)) as MethodInUseError;
    expect(error).toBeInstanceOf(MethodInUseError);
    expect(error.details!.payments).toEqual([
      { paymentGroupId: group.paymentGroupId, paymentId: payments[2]!.paymentId },
    ]);
    // Again: the same uses, nothing more.
    const second = await backfillMethodUses(table.db, table.tableName);
    expect(second.written).toBe(first.written);
    expect(await usesOf(used!.savedPaymentMethodId)).toHaveLength(1);
  });
});
