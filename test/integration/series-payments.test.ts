/**
 * A series' payments against DynamoDB Local (docs/architecture.md "Safe method deletion"): they are
 * uses of their saved methods, so a method a series charges is not deleted from under it (409
 * naming the series; `replaceWith` moves the series' payments, in bounded transactions, finished
 * by the sweeper after a crash, safe beside PUTs of the series and the creation of its
 * occurrences); a series created while its method is being deleted is refused (the fence); the
 * migration writes the uses of series made before them; and a series shows its payments in pages
 * that fit an answer.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CreateSeriesInput } from '#contract/schemas/series';
import { SERIES_PAYMENTS_PAGE } from '#contract/series';
import { deleteMethod, deletePayor, sweepDeletions } from '#core/method-deletion';
import { MethodInUseError } from '#core/method-in-use';
import { addMethod } from '#core/payors';
import { cancelSeries, createDueOccurrences, createSeries, updateSeries } from '#core/series';
import { paymentsPage } from '#core/series-payments';
import { parseProfileId, type SavedMethod } from '#domain/payors';
import { newSeries } from '#domain/series';
import { seriesEvent } from '#domain/series-view';
import { reloadConfigForTests } from '#shared/config';
import { keys } from '#store/keys';
import { groupStore } from '#store/groups';
import { DELETION_SWEEP_AFTER_SECONDS } from '#domain/method-deletions';
import { MethodDeletionStore, MOVE_BATCH } from '#store/method-deletions';
import { MethodUnavailableError } from '#store/method-uses';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { DynamoSeriesStore, seriesStore } from '#store/series';
import { backfillSeriesMethodUses } from '#store/series-uses-backfill';
import { sweepAbandonedCreates } from '#core/groups';
import { ddb } from '#shared/ddb';
import { ABANDONED_CREATE_MS } from '#store/write-ahead';
import { createTestTable, type TestTable } from '#support/ddb';
import { CrashError, injectCrash, removeCrashes } from '#support/ddb-faults';
import { makeMethod, makePayor } from '#support/fixtures/index';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
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
afterEach(() => {
  jest.restoreAllMocks();
  removeCrashes();
});

/** A stored payor with `count` methods (the first the default). */
async function payorWith(count: number): Promise<{ payorId: string; methods: SavedMethod[] }> {
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const methods = [method];
  for (let i = 1; i < count; i++) {
    const m = makeMethod(payor.payorId, MID);
    await addMethod(m, false, new Date());
    methods.push(m);
  }
  return { payorId: payor.payorId, methods };
}

const profileOf = (m: SavedMethod) => `${m.payorId}/${m.savedPaymentMethodId}`;

const seriesInput = (profiles: string[], over: Partial<CreateSeriesInput> = {}): CreateSeriesInput => ({
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
});

const seriesOn = (profiles: string[], over?: Partial<CreateSeriesInput>) =>
  createSeries(seriesInput(profiles, over), MERCHANT, new Date());

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

const methodsOfSeries = async (seriesId: string) =>
  (await seriesStore().payments(seriesId)).map((p) => parseProfileId(p.profileId).savedPaymentMethodId);

const refusal = async (run: Promise<unknown>): Promise<MethodInUseError> => {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MethodInUseError);
  return error as MethodInUseError;
};

/** Creates every occurrence due within 30 days (noticeDays 0: the first one). */
const createOccurrences = () =>
  createDueOccurrences({ horizon: new Date(Date.now() + 30 * DAY), deadline: Date.now() + 60_000 });

describe("a method a series' payments name", () => {
  test('is not deleted: 409 naming the active and paused series (not a canceled or completed one, whose uses are pruned); nor is its payor', async () => {
    const { payorId, methods } = await payorWith(2);
    const used = profileOf(methods[0]!);
    const active = await seriesOn([used]);
    const paused = await seriesOn([used, used]);
    await updateSeries(paused.seriesId, MID, { status: 'paused' }, new Date());
    const canceled = await seriesOn([used]);
    await cancelSeries(canceled.seriesId, MID, new Date());
    const completed = await seriesOn([used]);
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.series(completed.seriesId),
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': 'completed' },
      }),
    );

    const error = await refusal(
      deleteMethod(payorId, methods[0]!.savedPaymentMethodId, MID, undefined, new Date()),
    );
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/used by the payments of 2 series.*replaceWith.*cancel those series/);
    expect(error.details).toEqual({
      payments: [],
      series: expect.arrayContaining([
        { seriesId: active.seriesId },
        { seriesId: paused.seriesId },
      ]) as unknown,
    });
    expect(error.details!.series).toHaveLength(2);
    // The settled series' uses were pruned when listed; the others stay, one per payment.
    expect((await usesOf(methods[0]!.savedPaymentMethodId)).map((u) => u.seriesId).sort()).toEqual(
      [active.seriesId, paused.seriesId, paused.seriesId].sort(),
    );

    const payor = await refusal(deletePayor(payorId, MID, new Date()));
    expect(payor.message).toMatch(/cancel those series first/);
    expect(payor.details!.series).toHaveLength(2);
  });

  test("replaceWith moves a series' payments (in several transactions) with the groups', and the series' next occurrence charges the replacement", async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const bystander = profileOf((await payorWith(1)).methods[0]!);
    const count = 2 * MOVE_BATCH + 3;
    const series = await seriesOn([bystander, ...Array.from({ length: count }, () => profileOf(old!))]);
    const revision = (await seriesStore().get(series.seriesId))!.revision;
    // This test is about the moves, not the request's time budget: its clock stands.
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start);
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MID, replacement!.savedPaymentMethodId, new Date()),
    ).resolves.toEqual({ status: 'deleted' });
    jest.restoreAllMocks();

    const after = await methodsOfSeries(series.seriesId);
    expect(after[0]).toBe(parseProfileId(bystander).savedPaymentMethodId);
    expect(new Set(after.slice(1))).toEqual(new Set([replacement!.savedPaymentMethodId]));
    expect(await usesOf(old!.savedPaymentMethodId)).toHaveLength(0);
    expect(await usesOf(replacement!.savedPaymentMethodId)).toHaveLength(count);
    // One revision per move transaction: a write that read the series before reads it again.
    expect((await seriesStore().get(series.seriesId))!.revision).toBe(revision + 3);

    const report = await createOccurrences();
    const created = report.created.find((c) => c.seriesId === series.seriesId)!;
    const charged = (await paymentStore().paymentsAfterId(created.paymentGroupId, null, 100))!;
    expect(charged).toHaveLength(count + 1);
    expect(new Set(charged.slice(1).map((p) => p.profileId))).toEqual(new Set([profileOf(replacement!)]));
    expect((await seriesStore().get(series.seriesId))!.occurrences[0]).not.toHaveProperty('paymentsLeftOut');
  });

  test("a crash after the first batch of a series' moves: every payment names a method that exists; the sweeper finishes the move", async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const series = await seriesOn(Array.from({ length: 3 * MOVE_BATCH }, () => profileOf(old!)));
    const real = MethodDeletionStore.prototype.moveSeriesPayments;
    let calls = 0;
    jest.spyOn(MethodDeletionStore.prototype, 'moveSeriesPayments').mockImplementation(async function (
      this: MethodDeletionStore,
      ...args
    ) {
      if (++calls > 1) throw new Error('crash: the Lambda was stopped');
      return real.apply(this, args);
    });
    const started = new Date();
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MID, replacement!.savedPaymentMethodId, started),
    ).rejects.toThrow('crash');
    jest.restoreAllMocks();

    const half = await methodsOfSeries(series.seriesId);
    expect(half.filter((id) => id === replacement!.savedPaymentMethodId)).toHaveLength(MOVE_BATCH);
    expect(half.filter((id) => id === old!.savedPaymentMethodId)).toHaveLength(2 * MOVE_BATCH);
    // The method, marked, is still there for the payments that name it; no new series may take it.
    await expect(seriesOn([profileOf(old!)])).rejects.toThrow(/being deleted/);

    const later = new Date(started.getTime() + (DELETION_SWEEP_AFTER_SECONDS + 1) * 1000);
    expect(await sweepDeletions(later)).toContainEqual({
      payorId,
      methodIds: [old!.savedPaymentMethodId],
      result: 'deleted',
    });
    expect(new Set(await methodsOfSeries(series.seriesId))).toEqual(
      new Set([replacement!.savedPaymentMethodId]),
    );
  });
});

describe('under concurrency', () => {
  test('eight PUTs of the series while its method is deleted with replaceWith: each PUT applied (announced once), every payment moved', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const series = await seriesOn(
      Array.from({ length: 2 * MOVE_BATCH }, () => profileOf(old!)),
      {
        count: 10,
      },
    );
    const [deletion, ...puts] = await Promise.all([
      deleteMethod(payorId, old!.savedPaymentMethodId, MID, replacement!.savedPaymentMethodId, new Date()),
      ...Array.from({ length: 8 }, (_, i) =>
        updateSeries(series.seriesId, MID, { count: 11 + i }, new Date()),
      ),
    ]);
    expect(deletion).toEqual({ status: 'deleted' });
    const after = (await seriesStore().get(series.seriesId))!;
    // Each PUT changed the count once: 8 changes announced after the creation's event.
    expect(after.eventSeq).toBe(9);
    expect(puts.map((p) => p.count)).toContain(after.count);
    expect(new Set(await methodsOfSeries(series.seriesId))).toEqual(
      new Set([replacement!.savedPaymentMethodId]),
    );
    expect(await usesOf(replacement!.savedPaymentMethodId)).toHaveLength(2 * MOVE_BATCH);
  });

  test('an occurrence whose payments were read just before they moved and the method went: its group is made from the moved payments, nobody left out', async () => {
    const { payorId, methods } = await payorWith(2);
    const [old, replacement] = methods;
    const bystander = profileOf((await payorWith(1)).methods[0]!);
    const series = await seriesOn([bystander, profileOf(old!)]);
    // The creation reads the series' payments (on the old method); then, before it writes the
    // group, the whole deletion runs: the payment moves and the method is deleted.
    const read = DynamoSeriesStore.prototype.payments;
    jest.spyOn(DynamoSeriesStore.prototype, 'payments').mockImplementationOnce(async function (
      this: DynamoSeriesStore,
      seriesId: string,
    ) {
      const payments = await read.call(this, seriesId);
      await expect(
        deleteMethod(payorId, old!.savedPaymentMethodId, MID, replacement!.savedPaymentMethodId, new Date()),
      ).resolves.toEqual({ status: 'deleted' });
      return payments;
    });
    const report = await createOccurrences();
    jest.restoreAllMocks();
    const created = report.created.find((c) => c.seriesId === series.seriesId)!;
    expect(created).toBeDefined();
    const charged = (await paymentStore().paymentsAfterId(created.paymentGroupId, null, 10))!;
    expect(charged.map((p) => p.profileId)).toEqual([bystander, profileOf(replacement!)]);
    expect((await seriesStore().get(series.seriesId))!.occurrences[0]).not.toHaveProperty('paymentsLeftOut');
    expect(await groupStore().getGroup(created.paymentGroupId)).toMatchObject({ paymentCount: 2 });
  });
});

describe('the fence: a series whose method is being deleted is not written', () => {
  test.each([
    ['one transaction', 1],
    // 2 + 2 × 60 + 1 items: more than one transaction holds.
    ['written ahead', 60],
  ])('%s: MethodUnavailableError, and nothing of it stays', async (_how, count) => {
    const { payorId, methods } = await payorWith(2);
    const [old] = methods;
    // A deletion under way: its mark on the method (the request died before its last step).
    jest.spyOn(MethodDeletionStore.prototype, 'finishMethod').mockRejectedValue(new Error('crash'));
    jest.spyOn(MethodDeletionStore.prototype, 'undo').mockRejectedValueOnce(new Error('crash'));
    await expect(
      deleteMethod(payorId, old!.savedPaymentMethodId, MID, undefined, new Date()),
    ).rejects.toThrow('crash');
    jest.restoreAllMocks();

    const { series, payments } = newSeries(
      seriesInput(Array.from({ length: count }, () => profileOf(old!))),
      MID,
      `0190aaaa-0000-7000-8000-${String(count).padStart(12, '0')}`,
      new Date(),
    );
    const error = await seriesStore()
      .create(series, payments, seriesEvent('series.created', series, new Date()))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MethodUnavailableError);
    expect((error as MethodUnavailableError).methodIds).toEqual([old!.savedPaymentMethodId]);
    expect(await seriesStore().get(series.seriesId)).toBeUndefined();
    expect(await seriesStore().payments(series.seriesId)).toEqual([]);
    expect(await usesOf(old!.savedPaymentMethodId)).toEqual([]);
  });
});

describe('a large series create cut off before its commit', () => {
  test('the series, its payments and their uses written ahead are invisible, keep the method, and the sweep removes them all', async () => {
    const { payorId, methods } = await payorWith(2);
    const [used] = methods;
    const isCommit = (input: Record<string, unknown>) =>
      JSON.stringify(input).includes('REMOVE createAttempt');
    const crash = injectCrash(ddb(), 'TransactWriteItemsCommand', 'before', isCommit, { dies: true });
    const error = await seriesOn(Array.from({ length: 60 }, () => profileOf(used!))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrashError);
    crash.remove(); // the restart
    const written = await usesOf(used!.savedPaymentMethodId);
    expect(written).toHaveLength(60);
    const seriesId = String(written[0]!.seriesId);
    expect(await seriesStore().get(seriesId)).toBeUndefined();
    // Being created, the series keeps its method: it may still commit.
    const refused = await refusal(
      deleteMethod(payorId, used!.savedPaymentMethodId, MID, undefined, new Date()),
    );
    expect(refused.details!.series).toEqual([{ seriesId }]);

    expect(await sweepAbandonedCreates(new Date(Date.now() + ABANDONED_CREATE_MS + 60_000))).toContain(
      seriesId,
    );
    expect(await seriesStore().payments(seriesId)).toEqual([]);
    expect(await usesOf(used!.savedPaymentMethodId)).toEqual([]);
    await expect(
      deleteMethod(payorId, used!.savedPaymentMethodId, MID, undefined, new Date()),
    ).resolves.toEqual({ status: 'deleted' });
  });
});

describe('the migration of series made before their uses existed (backfill-method-uses)', () => {
  test('writes the use of each payment of an active or paused series, so its method is not deleted; reports one already gone; repeats safely', async () => {
    const { payorId, methods } = await payorWith(2);
    const [used] = methods;
    const series = await seriesOn([profileOf(used!), profileOf(used!)]);
    const paused = await seriesOn([profileOf(used!)]);
    await updateSeries(paused.seriesId, MID, { status: 'paused' }, new Date());
    const canceled = await seriesOn([profileOf(used!)]);
    await cancelSeries(canceled.seriesId, MID, new Date());
    // As series of the previous version: no uses.
    const forget = async (methodId: string) => {
      for (const u of await usesOf(methodId))
        await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { pk: u.pk, sk: u.sk } }));
    };
    await forget(used!.savedPaymentMethodId);
    // A legacy series whose method was deleted before the migration.
    const gone = await payorWith(2);
    const orphan = await seriesOn([profileOf(gone.methods[0]!)]);
    await forget(gone.methods[0]!.savedPaymentMethodId);
    await expect(
      deleteMethod(gone.payorId, gone.methods[0]!.savedPaymentMethodId, MID, undefined, new Date()),
    ).resolves.toEqual({ status: 'deleted' });

    const first = await backfillSeriesMethodUses(table.db, table.tableName);
    expect(first.atRisk).toContain(`${orphan.seriesId}#0`);
    expect((await usesOf(used!.savedPaymentMethodId)).map((u) => `${u.seriesId}#${u.index}`).sort()).toEqual(
      [`${series.seriesId}#0`, `${series.seriesId}#1`, `${paused.seriesId}#0`].sort(),
    );
    const error = await refusal(
      deleteMethod(payorId, used!.savedPaymentMethodId, MID, undefined, new Date()),
    );
    expect(error.details!.series).toEqual(
      expect.arrayContaining([{ seriesId: series.seriesId }, { seriesId: paused.seriesId }]),
    );
    const second = await backfillSeriesMethodUses(table.db, table.tableName);
    expect(second.written).toBe(first.written);
    expect(await usesOf(used!.savedPaymentMethodId)).toHaveLength(3);
  });
});

describe("a series' payments in pages", () => {
  test('a page holds at most its size, fewer when they are large, and paymentsNext leads through every payment', async () => {
    const { methods } = await payorWith(1);
    const profileId = profileOf(methods[0]!);
    // The largest payment the contract allows: 50 attributes of 1,000 quotes, each escaped twice.
    const customAttributes = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`attribute${i}`, '"'.repeat(1000)]),
    );
    const payments = Array.from({ length: 40 }, (_, i) => ({ profileId, amount: 1 + i, customAttributes }));
    const big = await createSeries(seriesInput([], { payments }), MERCHANT, new Date());
    const seen: number[] = [];
    let from: number | undefined = 0;
    let pages = 0;
    while (from !== undefined) {
      const page = await paymentsPage(big, from, 500);
      const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(page.payments)));
      expect(bytes).toBeLessThanOrEqual(SERIES_PAYMENTS_PAGE.maxBytes);
      expect(page.payments.length).toBeGreaterThan(0);
      seen.push(...page.payments.map((p) => p.index));
      from = page.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i));

    const small = await seriesOn(Array.from({ length: 5 }, () => profileId));
    expect(await paymentsPage(small, 0, 2)).toMatchObject({
      next: 2,
      payments: [{ index: 0 }, { index: 1 }],
    });
    expect(await paymentsPage(small, 4, 2)).toEqual({
      payments: [expect.objectContaining({ index: 4, amount: 14, status: 'active' })],
    });
    expect(await paymentsPage(small, 5, 2)).toEqual({ payments: [] });
  });
});
