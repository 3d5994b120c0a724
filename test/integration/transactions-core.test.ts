/**
 * The transactions core (sale, refund, void, request idempotency) against DynamoDB Local with the
 * sandbox processor, whose ledger in the same table counts every processor call per key.
 */
import { requireTransaction } from '#core/transactions';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idempotent } from '#core/idempotency';
import { refundSale, voidSale } from '#core/reversals';
import { runSale, type SaleRequest } from '#core/sale';
import { sweep } from '#core/sweeper';
import { DECLINE_CATEGORY_DESCRIPTIONS } from '#domain/declines';
import { MAX_REFUNDS_PER_SALE, transactionView, type Transaction } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from '#shared/errors';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { eventStore } from '#store/events';
import { DynamoMethodStore } from '#store/methods';
import { idempotencyStore, type StoredResponse } from '#store/idempotency';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { saleRequest, storedProfile } from '#support/sales';
import { nameOf, settle } from '#support/fixtures/index';
import { FaultyProcessor } from '#support/processor-double';

let table: TestTable;
let processor: FaultyProcessor;
let sandbox: SandboxProcessor;
const MERCHANT = '32350000001';
const T0 = Date.now();
/** Sales made now settle about 12 hours from now (a daily cut-off placed there). */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(T0 / 1000) + 43_200) % 86_400 };
const unsettled = () => new Date();
const settled = () => new Date(T0 + 13 * 3600_000);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  delete process.env.DUPLICATE_WINDOW_SECONDS;
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
  processor = new FaultyProcessor(sandbox);
  useProcessor(processor);
});
afterEach(() => processor.clear());
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

const aProfile = (profile = 'ok'): Promise<string> => storedProfile(table, MERCHANT, profile);
const sale = (profileId: string, amountCents: number, extra: Partial<SaleRequest> = {}): SaleRequest =>
  saleRequest(MERCHANT, profileId, amountCents, extra);

const ledgerCalls = async (kind: 'SALE' | 'VOID' | 'REFUND', key: string) =>
  ((await sandbox.ledger(kind, key))?.calls as number | undefined) ?? 0;

async function view(transactionId: string) {
  const found = await requireTransaction(transactionId, MERCHANT);
  return transactionView(found.transaction, found.refunds, settled());
}

/** An approved sale (made now, so unsettled until `settled()`). */
async function approvedSale(amountCents: number): Promise<Transaction> {
  const txn = await runSale(sale(await aProfile(), amountCents), unsettled());
  expect(txn.status).toBe('Approved');
  return txn;
}

describe('duplicate check', () => {
  const base = new Date('2031-03-01T10:00:00.000Z');
  const at = (seconds: number) => new Date(base.getTime() + seconds * 1000);

  test('an identical sale 299 s later is a duplicate; 301 s later it is not', async () => {
    const profile = await aProfile();
    const first = await runSale(sale(profile, 1234), base);
    expect(first).toMatchObject({ status: 'Approved', isDuplicate: false });
    const within = sale(profile, 1234);
    const dup = await runSale(within, at(299));
    expect(dup).toMatchObject({
      status: 'Declined',
      responseCode: '19',
      isDuplicate: true,
      originalTransactionId: first.transactionId,
    });
    expect(transactionView(dup, [], at(299))).toMatchObject({ declineCategory: '1', isDuplicate: true });
    expect(await ledgerCalls('SALE', within.processorKey)).toBe(0);
    const after = sale(profile, 1234);
    const outside = await runSale(after, at(301));
    expect(outside).toMatchObject({ status: 'Approved', isDuplicate: false });
    expect(await ledgerCalls('SALE', after.processorKey)).toBe(1);
    // The window now runs from the last approved sale.
    expect(await runSale(sale(profile, 1234), at(400))).toMatchObject({
      isDuplicate: true,
      originalTransactionId: outside.transactionId,
    });
  });

  test('a different amount or a different method is not a duplicate', async () => {
    const profile = await aProfile();
    const other = await aProfile();
    expect((await runSale(sale(profile, 2000), base)).status).toBe('Approved');
    expect(await runSale(sale(profile, 2001), at(1))).toMatchObject({
      status: 'Approved',
      isDuplicate: false,
    });
    expect(await runSale(sale(other, 2000), at(2))).toMatchObject({ status: 'Approved', isDuplicate: false });
    expect(await runSale(sale(profile, 2000), at(3))).toMatchObject({ isDuplicate: true });
  });

  test('DUPLICATE_WINDOW_SECONDS changes the window', async () => {
    const profile = await aProfile();
    process.env.DUPLICATE_WINDOW_SECONDS = '10';
    reloadConfigForTests();
    try {
      expect((await runSale(sale(profile, 3000), base)).status).toBe('Approved');
      expect(await runSale(sale(profile, 3000), at(9))).toMatchObject({ isDuplicate: true });
      expect(await runSale(sale(profile, 3000), at(11))).toMatchObject({
        status: 'Approved',
        isDuplicate: false,
      });
    } finally {
      delete process.env.DUPLICATE_WINDOW_SECONDS;
      reloadConfigForTests();
    }
  });

  test('a declined sale blocks nothing: the next identical sale is processed', async () => {
    const profile = await aProfile('51');
    const first = await runSale(sale(profile, 4500), base);
    expect(first).toMatchObject({ status: 'Declined', responseCode: '51', isDuplicate: false });
    const retry = sale(profile, 4500);
    const second = await runSale(retry, at(5));
    expect(second).toMatchObject({ status: 'Declined', responseCode: '51', isDuplicate: false });
    expect(second.originalTransactionId).toBeUndefined();
    expect(await ledgerCalls('SALE', retry.processorKey)).toBe(1);
  });

  test('of 20 concurrent identical sales one is approved and 19 are duplicates of it', async () => {
    const profile = await aProfile();
    const requests = Array.from({ length: 20 }, () => sale(profile, 5555));
    const results = await Promise.all(requests.map((r) => runSale(r, at(50))));
    const approved = results.filter((t) => t.status === 'Approved');
    expect(approved).toHaveLength(1);
    const duplicates = results.filter((t) => t.isDuplicate);
    expect(duplicates).toHaveLength(19);
    for (const d of duplicates) {
      expect(d).toMatchObject({
        status: 'Declined',
        responseCode: '19',
        originalTransactionId: approved[0]!.transactionId,
      });
    }
    const charged = await Promise.all(requests.map((r) => ledgerCalls('SALE', r.processorKey)));
    expect(charged.reduce((a, b) => a + b, 0)).toBe(1);
  });

  test('runSale with the same transactionId twice charges once and returns the stored sale', async () => {
    const request = sale(await aProfile(), 777);
    const first = await runSale(request, base);
    const again = await runSale(request, at(1000));
    expect(again).toEqual(first);
    expect(await ledgerCalls('SALE', request.processorKey)).toBe(1);
    expect(processor.calls.filter((c) => c.key === request.processorKey)).toHaveLength(1);
  });

  test("with onNoAnswer 'throw', a sale whose answer was lost is completed by a retry with no second charge", async () => {
    // onNoAnswer 'throw': the caller retries with the same key (no timeout reversal).
    const request = sale(await aProfile(), 888, { onNoAnswer: 'throw' });
    processor.failNext(request.processorKey, 'unavailable-after');
    await expect(runSale(request, base)).rejects.toThrow('the answer was lost');
    // Recorded Pending before the processor was asked (issue 13, defect 1).
    expect((await transactionStore().find(request.transactionId))?.transaction.status).toBe('Pending');
    const txn = await runSale(request, at(1));
    expect(txn).toMatchObject({ status: 'Approved', isDuplicate: false });
    expect(await ledgerCalls('SALE', request.processorKey)).toBe(2);
    const ledger = await sandbox.ledger('SALE', request.processorKey);
    expect(txn.processorTransactionId).toBe(
      (ledger?.result as { processorTransactionId: string }).processorTransactionId,
    );
  });

  test('a profile naming no saved method is rejected (API) or declined PM (scheduled)', async () => {
    await expect(runSale(sale(`${newId()}/${newId()}`, 100), base)).rejects.toBeInstanceOf(BadRequestError);
    const declined = await runSale(sale(`${newId()}/${newId()}`, 100, { missingMethod: 'decline' }), base);
    expect(declined).toMatchObject({ status: 'Declined', responseCode: 'PM', isDuplicate: false });
  });
});

describe('timeout reversal (the processor gives no answer)', () => {
  const base = new Date('2031-03-03T10:00:00.000Z');
  const at = (seconds: number) => new Date(base.getTime() + seconds * 1000);
  const REVERSED = 'Processor did not answer; the authorization was reversed';

  /** The transaction id the duplicate guard of this method and amount names, if any. */
  async function guardOf(profileId: string, amountCents: number): Promise<string | undefined> {
    const methodId = profileId.split('/')[1]!;
    const { Item } = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.duplicateGuard(MERCHANT, methodId, amountCents),
        ConsistentRead: true,
      }),
    );
    return Item?.transactionId as string | undefined;
  }

  const callsOf = (key: string) => processor.calls.filter((c) => c.key === key).map((c) => c.kind);

  test('no answer: reversed, a Declined 96 (category 2) is recorded and the duplicate guard released', async () => {
    const profile = await aProfile();
    const request = sale(profile, 6100);
    processor.failNext(request.processorKey, 'unavailable-before');
    const txn = await runSale(request, base);
    expect(txn).toMatchObject({
      transactionId: request.transactionId,
      status: 'Declined',
      responseCode: '96',
      responseMessage: REVERSED,
      isDuplicate: false,
      approvedCents: 0,
      amountCents: 6100,
      accountType: 'VISA',
      maskedAccountNumber: '************1111',
    });
    expect(txn.processorTransactionId).toBeUndefined();
    expect(txn.settlesAt).toBeUndefined();
    expect(callsOf(request.processorKey)).toEqual(['SALE', 'REVERSE']);

    // Recorded and findable, with category 2 (may retry) in the view.
    expect((await transactionStore().find(txn.transactionId))?.transaction).toEqual(txn);
    expect(await view(txn.transactionId)).toMatchObject({
      status: 'Declined',
      responseCode: '96',
      responseMessage: REVERSED,
      declineCategory: '2',
      declineCategoryDescription: DECLINE_CATEGORY_DESCRIPTIONS['2'],
      approvedAmount: 0,
      availableRefundAmount: 0,
      settled: false,
    });
    // The processor's ledger holds the reversal: nothing charged under this key.
    expect(await sandbox.ledger('SALE', request.processorKey)).toMatchObject({
      reversed: true,
      calls: 0,
      result: { approved: false, responseCode: '96', approvedCents: 0 },
    });
    // The guard is released.
    expect(await guardOf(profile, 6100)).toBeUndefined();

    // Running the same request again returns the stored decline, without a processor call.
    expect(await runSale(request, at(1))).toEqual(txn);
    expect(callsOf(request.processorKey)).toEqual(['SALE', 'REVERSE']);

    // An identical sale right after is processed (not a duplicate) and approved.
    const next = sale(profile, 6100);
    const approved = await runSale(next, at(2));
    expect(approved).toMatchObject({ status: 'Approved', isDuplicate: false, approvedCents: 6100 });
    expect(approved.originalTransactionId).toBeUndefined();
    expect(await ledgerCalls('SALE', next.processorKey)).toBe(1);
    expect(await guardOf(profile, 6100)).toBe(next.transactionId);
  });

  test('a later sale with the reversed processor key gets the reversed (declined) answer', async () => {
    const profile = await aProfile();
    const request = sale(profile, 6150);
    processor.failNext(request.processorKey, 'unavailable-before');
    expect((await runSale(request, base)).responseCode).toBe('96');

    // Straight at the processor: the key answers declined, whatever the request.
    const method = (await new DynamoMethodStore(table.db, table.tableName).findMethod(
      profile.split('/')[0]!,
      profile.split('/')[1]!,
      MERCHANT,
    ))!;
    const direct = await processor.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: request.processorKey,
      merchantId: MERCHANT,
      token: method.processorToken,
      amountCents: 6150,
      allowPartial: false,
    });
    expect(direct).toMatchObject({ approved: false, responseCode: '96', approvedCents: 0 });

    // Through the core, as a new transaction reusing the key: a decline, and the guard is free again.
    const reuse = sale(profile, 6150, { processorKey: request.processorKey });
    const again = await runSale(reuse, at(1));
    expect(again).toMatchObject({
      status: 'Declined',
      responseCode: '96',
      isDuplicate: false,
      approvedCents: 0,
      processorTransactionId: direct.processorTransactionId,
    });
    expect(transactionView(again, [], at(1)).declineCategory).toBe('2');
    expect(await guardOf(profile, 6150)).toBeUndefined();
    // Answered from the ledger each time: the reversal stays in place.
    expect(await sandbox.ledger('SALE', request.processorKey)).toMatchObject({
      reversed: true,
      calls: 2,
      result: { approved: false, responseCode: '96' },
    });
  });

  test('charged but the answer lost: the reversal replaces the charge in the ledger (no money moved)', async () => {
    const profile = await aProfile();
    const request = sale(profile, 6200);
    processor.failNext(request.processorKey, 'unavailable-after');
    const txn = await runSale(request, base);
    expect(txn).toMatchObject({ status: 'Declined', responseCode: '96', approvedCents: 0 });
    expect(callsOf(request.processorKey)).toEqual(['SALE', 'REVERSE']);
    const ledger = await sandbox.ledger('SALE', request.processorKey);
    expect(ledger).toMatchObject({
      reversed: true,
      result: { approved: false, responseCode: '96', approvedCents: 0 },
    });
    expect(ledger!.result).not.toHaveProperty('authCode');
    expect(await guardOf(profile, 6200)).toBeUndefined();
    expect((await runSale(sale(profile, 6200), at(1))).status).toBe('Approved');
  });

  test("onNoAnswer 'throw': the error propagates, the sale stays Pending, the guard still names it", async () => {
    const profile = await aProfile();
    const request = sale(profile, 6300, { onNoAnswer: 'throw' });
    processor.failNext(request.processorKey, 'unavailable-before');
    const error = await runSale(request, base).catch((e: unknown) => e);
    expect(nameOf(error)).toBe('ProcessorUnavailableError');
    expect(callsOf(request.processorKey)).toEqual(['SALE']);
    expect((await transactionStore().find(request.transactionId))?.transaction.status).toBe('Pending');
    expect(await sandbox.ledger('SALE', request.processorKey)).toBeUndefined();
    expect(await guardOf(profile, 6300)).toBe(request.transactionId);

    // Meanwhile an identical sale is a duplicate of the sale in flight.
    expect(await runSale(sale(profile, 6300), at(1))).toMatchObject({
      status: 'Declined',
      responseCode: '19',
      isDuplicate: true,
      originalTransactionId: request.transactionId,
    });
    // The retry (same transaction id and key) goes through the guard it holds and completes.
    const done = await runSale(request, at(2));
    expect(done).toMatchObject({ status: 'Approved', isDuplicate: false });
    expect(await ledgerCalls('SALE', request.processorKey)).toBe(1);
    expect(await guardOf(profile, 6300)).toBe(request.transactionId);
  });

  test('other processor errors propagate without a reversal; the sale stays Pending', async () => {
    const profile = await aProfile();
    const request = sale(profile, 6400);
    processor.failNext(request.processorKey, 'crash-after');
    await expect(runSale(request, base)).rejects.toThrow('simulated crash');
    expect(callsOf(request.processorKey)).toEqual(['SALE']);
    expect((await transactionStore().find(request.transactionId))?.transaction.status).toBe('Pending');
    expect(await sandbox.ledger('SALE', request.processorKey)).not.toHaveProperty('reversed');
  });

  test('a reversal that gets no answer either: Declined 96 recorded first, the sweeper reverses later', async () => {
    const profile = await aProfile();
    const request = sale(profile, 6500);
    processor.failNext(request.processorKey, 'unavailable-before');
    processor.reverseFault = 'unavailable-before';
    const txn = await runSale(request, base);
    expect(txn).toMatchObject({ status: 'Declined', responseCode: '96', approvedCents: 0 });
    expect(callsOf(request.processorKey)).toEqual(['SALE', 'REVERSE']);
    expect((await transactionStore().find(request.transactionId))?.transaction).toMatchObject({
      status: 'Declined',
      reversalDue: true,
    });
    expect(await guardOf(profile, 6500)).toBeUndefined();
    processor.reverseFault = 'none';
    // A retry returns the decline; the sweeper makes the reversal.
    expect(await runSale(request, at(1))).toMatchObject({ status: 'Declined', responseCode: '96' });
    const report = await sweep(at(60), { olderThanSeconds: 30 });
    expect(report.reversed).toContainEqual(
      expect.objectContaining({ kind: 'reverse', transactionId: request.transactionId }),
    );
    expect(await sandbox.ledger('SALE', request.processorKey)).toMatchObject({ reversed: true });
    const after = (await transactionStore().find(request.transactionId))!.transaction;
    expect(after.reversalDue).toBeUndefined();
  });
});

describe('request idempotency', () => {
  const ref = () => ({ merchantId: MERCHANT, scope: 'sale', key: newId() });
  const now = new Date('2031-03-02T10:00:00.000Z');
  const later = (ms: number) => new Date(now.getTime() + ms);

  test('the same key with the same body replays the first response; a different body is 409', async () => {
    const key = ref();
    const seen: string[] = [];
    const work = async (id: string): Promise<StoredResponse> => {
      seen.push(id);
      return { status: 201, body: { transactionId: id } };
    };
    const first = await idempotent(key, { amount: 1, profileId: 'a/b' }, 'id-1', now, work);
    // Key order does not change the request.
    const replay = await idempotent(key, { profileId: 'a/b', amount: 1 }, 'id-2', later(1), work);
    // The stored answer, marked as a replay (the route builder sends Idempotent-Replayed: true).
    expect(replay).toEqual({ ...first, replayed: true });
    expect(seen).toEqual(['id-1']);
    const conflict = await idempotent(key, { amount: 2, profileId: 'a/b' }, 'id-3', later(2), work).catch(
      (e: unknown) => e,
    );
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).status).toBe(409);
    expect(seen).toEqual(['id-1']);
  });

  test('a request still in progress (live lease) is 409 and does not run twice', async () => {
    const key = ref();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let runs = 0;
    const work = async (id: string): Promise<StoredResponse> => {
      runs++;
      started();
      await gate;
      return { status: 201, body: { id } };
    };
    const first = idempotent(key, { x: 1 }, 'id-a', now, work);
    await running;
    const second = await idempotent(key, { x: 1 }, 'id-b', later(29_000), work).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ConflictError);
    expect((second as Error).message).toMatch(/in progress/);
    release();
    expect(await first).toEqual({ status: 201, body: { id: 'id-a' } });
    expect(runs).toBe(1);
    expect(await idempotent(key, { x: 1 }, 'id-c', later(60_000), work)).toEqual({
      status: 201,
      body: { id: 'id-a' },
      replayed: true,
    });
  });

  test('after a crash, a retry past the lease resumes with the same resource id', async () => {
    const key = ref();
    const crash = idempotent(key, { y: 1 }, 'res-1', now, async () => {
      throw new Error('crashed half-way');
    });
    await expect(crash).rejects.toThrow('crashed half-way');
    // Within the lease: still in progress.
    await expect(
      idempotent(key, { y: 1 }, 'res-2', later(29_000), async (id) => ({ status: 201, body: id })),
    ).rejects.toBeInstanceOf(ConflictError);
    const resumed = await idempotent(key, { y: 1 }, 'res-3', later(31_000), async (id) => ({
      status: 201,
      body: id,
    }));
    expect(resumed).toEqual({ status: 201, body: 'res-1' });
  });

  test('the store: an expired lease is resumed once, with the first resource id', async () => {
    const key = ref();
    const store = idempotencyStore();
    const h = { keyed: 'h', unkeyed: () => 'not-a-sha-256' };
    expect(await store.claim(key, h, 'r-1', now)).toEqual({ kind: 'new', resourceId: 'r-1' });
    expect(await store.claim(key, h, 'r-2', later(1000))).toEqual({
      kind: 'in-progress',
      leaseUntil: now.getTime() + 30_000,
    });
    expect(await store.claim(key, { ...h, keyed: 'other' }, 'r-2', later(1000))).toEqual({
      kind: 'mismatch',
    });
    const racers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.claim(key, h, `r-x${i}`, later(31_000))),
    );
    expect(racers.filter((c) => c.kind === 'resume')).toEqual([{ kind: 'resume', resourceId: 'r-1' }]);
    expect(racers.filter((c) => c.kind === 'in-progress')).toHaveLength(9);
  });

  test('a refused request (4xx) releases the key; a 5xx keeps it', async () => {
    const key = ref();
    await expect(
      idempotent(key, { z: 1 }, 'r-1', now, async () => {
        throw new BadRequestError('invalid');
      }),
    ).rejects.toBeInstanceOf(BadRequestError);
    // Released: a different body is not a conflict, and the work runs with a new id.
    const fresh = await idempotent(key, { z: 2 }, 'r-2', later(1), async (id) => ({ status: 201, body: id }));
    expect(fresh).toEqual({ status: 201, body: 'r-2' });
    const kept = ref();
    await expect(
      idempotent(kept, { z: 1 }, 'k-1', now, async () => {
        throw new ServiceUnavailableError('try later');
      }),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(
      idempotent(kept, { z: 1 }, 'k-2', later(1), async (id) => ({ status: 201, body: id })),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(
      await idempotent(kept, { z: 1 }, 'k-3', later(31_000), async (id) => ({ status: 201, body: id })),
    ).toEqual({
      status: 201,
      body: 'k-1',
    });
  });

  test('idempotent sales: a repeated request neither charges nor checks duplicates again', async () => {
    const key = ref();
    const profile = await aProfile();
    const body = { profileId: profile, amount: 12.5 };
    const run = (when: Date) =>
      idempotent(key, body, newId(), when, async (transactionId) => {
        const txn = await runSale(
          sale(profile, 1250, { transactionId, processorKey: `sale:${transactionId}` }),
          when,
        );
        return { status: 201, body: txn };
      });
    const first = await run(now);
    const second = await run(later(5000));
    expect(second).toEqual({ ...first, replayed: true });
    expect((first.body as Transaction).status).toBe('Approved');
    expect(await ledgerCalls('SALE', `sale:${(first.body as Transaction).transactionId}`)).toBe(1);
  });
});

describe('refunds and voids', () => {
  test('a refund before settlement is refused; after it, partial refunds add up', async () => {
    const txn = await approvedSale(5000);
    await expect(refundSale(MERCHANT, txn.transactionId, 1000, newId(), unsettled())).rejects.toThrow(
      /not settled/,
    );
    const a = await refundSale(MERCHANT, txn.transactionId, 1000, newId(), settled());
    expect(a.refund.status).toBe('Completed');
    const b = await refundSale(MERCHANT, txn.transactionId, 1500, newId(), settled());
    expect(b.transaction).toMatchObject({ refundedCents: 2500, refundCount: 2 });
    expect(await view(txn.transactionId)).toMatchObject({
      originalAmount: 50,
      refundedAmount: 25,
      availableRefundAmount: 25,
      refundCount: 2,
    });
    const tooMuch = await refundSale(MERCHANT, txn.transactionId, 2501, newId(), settled()).catch(
      (e: unknown) => e,
    );
    expect(tooMuch).toBeInstanceOf(BadRequestError);
    expect((tooMuch as Error).message).toMatch(/exceeds availableRefundAmount 25\.00/);
    await refundSale(MERCHANT, txn.transactionId, 2500, newId(), settled());
    expect(await view(txn.transactionId)).toMatchObject({
      refundedAmount: 50,
      availableRefundAmount: 0,
      refundCount: 3,
    });
    await expect(refundSale(MERCHANT, txn.transactionId, 1, newId(), settled())).rejects.toBeInstanceOf(
      BadRequestError,
    );
    // Another merchant's transaction is not found.
    await expect(refundSale('32350000002', txn.transactionId, 1, newId(), settled())).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  test('defect: a sale refunded a cent at a time took refunds without end (60,000: a 7 MB answer, each refund reading every one before it): at most 100', async () => {
    const txn = await approvedSale(5000);
    await refundSale(MERCHANT, txn.transactionId, 1, newId(), settled());
    const read = (await requireTransaction(txn.transactionId, MERCHANT)).transaction;
    // As if 99 more refunds had been taken since that read.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.transaction(txn.transactionId),
        UpdateExpression: 'SET refundCount = :n',
        ExpressionAttributeValues: { ':n': MAX_REFUNDS_PER_SALE },
      }),
    );
    // The reservation refuses one more even on a sale read before (a concurrent refund)...
    const refund = {
      refundId: newId(),
      transactionId: txn.transactionId,
      amountCents: 1,
      status: 'Pending' as const,
      date: settled().toISOString(),
    };
    expect(await transactionStore().reserveRefund(read, refund)).toBe(false);
    // ...and the request says why, with the amount still available.
    await expect(refundSale(MERCHANT, txn.transactionId, 1, newId(), settled())).rejects.toThrow(
      new BadRequestError(
        `transaction ${txn.transactionId} already has ${MAX_REFUNDS_PER_SALE} refunds, the most a sale takes`,
      ),
    );
    expect(await view(txn.transactionId)).toMatchObject({
      refundedAmount: 0.01,
      availableRefundAmount: 49.99,
    });
  });

  test('a refund the processor declines ends Failed and frees its amount', async () => {
    const txn = await approvedSale(5000);
    await refundSale(MERCHANT, txn.transactionId, 1000, newId(), settled());
    processor.refundFault = 'decline';
    const failedId = newId();
    const failed = await refundSale(MERCHANT, txn.transactionId, 3000, failedId, settled());
    expect(failed.refund).toMatchObject({ status: 'Failed', responseCode: '05' });
    expect(failed.transaction).toMatchObject({ refundedCents: 1000, refundCount: 1 });
    const v = await view(txn.transactionId);
    expect(v).toMatchObject({ refundedAmount: 10, availableRefundAmount: 40, refundCount: 1 });
    expect(v.refundHistory.map((r) => r.status).sort()).toEqual(['Completed', 'Failed']);
    // Calling again with the failed refund's id returns it as it is, without a processor call.
    processor.refundFault = 'none';
    const again = await refundSale(MERCHANT, txn.transactionId, 3000, failedId, settled());
    expect(again.refund.status).toBe('Failed');
    expect(processor.calls.filter((c) => c.key === `refund:${failedId}`)).toHaveLength(1);
    // The freed amount can be refunded.
    expect((await refundSale(MERCHANT, txn.transactionId, 4000, newId(), settled())).refund.status).toBe(
      'Completed',
    );
    expect(await view(txn.transactionId)).toMatchObject({
      refundedAmount: 50,
      availableRefundAmount: 0,
      refundCount: 2,
    });
  });

  test('an unreachable processor leaves the refund Pending and counted; a retry completes it once', async () => {
    const txn = await approvedSale(5000);
    const refundId = newId();
    processor.failNext(`refund:${refundId}`, 'unavailable-before');
    const error = await refundSale(MERCHANT, txn.transactionId, 2000, refundId, settled()).catch(
      (e: unknown) => e,
    );
    expect(nameOf(error)).toBe('ProcessorUnavailableError');
    const pending = await view(txn.transactionId);
    expect(pending).toMatchObject({ refundedAmount: 20, availableRefundAmount: 30, refundCount: 1 });
    expect(pending.refundHistory).toEqual([
      expect.objectContaining({ refundId, status: 'Pending', amount: 20 }),
    ]);
    // The pending amount is reserved: 30.01 does not fit.
    await expect(refundSale(MERCHANT, txn.transactionId, 3001, newId(), settled())).rejects.toBeInstanceOf(
      BadRequestError,
    );
    const done = await refundSale(MERCHANT, txn.transactionId, 2000, refundId, settled());
    expect(done.refund.status).toBe('Completed');
    expect(done.transaction).toMatchObject({ refundedCents: 2000, refundCount: 1 });
    expect(await ledgerCalls('REFUND', `refund:${refundId}`)).toBe(1);
  });

  test('a refund whose answer was lost is replayed by the processor on retry, not repeated', async () => {
    const txn = await approvedSale(5000);
    const refundId = newId();
    processor.failNext(`refund:${refundId}`, 'unavailable-after');
    await expect(refundSale(MERCHANT, txn.transactionId, 2000, refundId, settled())).rejects.toThrow(
      'the answer was lost',
    );
    const done = await refundSale(MERCHANT, txn.transactionId, 2000, refundId, settled());
    expect(done.refund.status).toBe('Completed');
    expect(done.transaction).toMatchObject({ refundedCents: 2000, refundCount: 1 });
    // Two calls with one key: the second was answered from the ledger.
    expect(await ledgerCalls('REFUND', `refund:${refundId}`)).toBe(2);
  });

  test('20 concurrent refunds of 10.00 on 50.00 reserve exactly 5', async () => {
    const txn = await approvedSale(5000);
    const ids = Array.from({ length: 20 }, () => newId());
    const { ok, errors } = await settle(
      ids.map((id) => refundSale(MERCHANT, txn.transactionId, 1000, id, settled())),
    );
    expect(ok).toHaveLength(5);
    expect(errors).toHaveLength(15);
    for (const e of errors) expect(e).toBeInstanceOf(BadRequestError);
    const { transaction, refunds } = await requireTransaction(txn.transactionId, MERCHANT);
    expect(transaction).toMatchObject({ refundedCents: 5000, refundCount: 5 });
    expect(refunds).toHaveLength(5);
    expect(refunds.every((r) => r.status === 'Completed')).toBe(true);
    const refundCalls = await Promise.all(ids.map((id) => ledgerCalls('REFUND', `refund:${id}`)));
    expect(refundCalls.reduce((a, b) => a + b, 0)).toBe(5);
  });

  test('concurrent refunds with failures never reserve beyond the charge', async () => {
    const txn = await approvedSale(5000);
    const ids = Array.from({ length: 12 }, () => newId());
    ids.slice(0, 4).forEach((id) => processor.failNext(`refund:${id}`, 'decline'));
    await settle(ids.map((id) => refundSale(MERCHANT, txn.transactionId, 700, id, settled())));
    const { transaction, refunds } = await requireTransaction(txn.transactionId, MERCHANT);
    const live = refunds.filter((r) => r.status !== 'Failed');
    expect(transaction.refundedCents).toBe(live.reduce((s, r) => s + r.amountCents, 0));
    expect(transaction.refundCount).toBe(live.length);
    expect(transaction.refundedCents).toBeLessThanOrEqual(5000);
  });

  test('void before settlement; a void of a settled sale is refused; voiding twice is fine', async () => {
    const txn = await approvedSale(3000);
    const voided = await voidSale(MERCHANT, txn.transactionId, unsettled());
    expect(voided).toMatchObject({ status: 'Voided' });
    expect(voided.voidedAt).toBeDefined();
    const twice = await voidSale(MERCHANT, txn.transactionId, unsettled());
    expect(twice).toEqual(voided);
    expect(await ledgerCalls('VOID', `void:${txn.transactionId}`)).toBe(1);
    expect(await view(txn.transactionId)).toMatchObject({ status: 'Voided', availableRefundAmount: 0 });
    await expect(refundSale(MERCHANT, txn.transactionId, 100, newId(), settled())).rejects.toBeInstanceOf(
      BadRequestError,
    );

    const other = await approvedSale(3100);
    const refused = await voidSale(MERCHANT, other.transactionId, settled()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as Error).message).toMatch(/settled/);
    expect(await ledgerCalls('VOID', `void:${other.transactionId}`)).toBe(0);
    expect((await requireTransaction(other.transactionId, MERCHANT)).transaction.status).toBe('Approved');
  });

  test('concurrent voids of one sale void it once', async () => {
    const txn = await approvedSale(3200);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => voidSale(MERCHANT, txn.transactionId, unsettled())),
    );
    expect(results.every((t) => t.status === 'Voided')).toBe(true);
    expect(new Set(results.map((t) => t.voidedAt)).size).toBe(1);
  });

  test('a declined sale cannot be voided or refunded', async () => {
    const txn = await runSale(sale(await aProfile('05'), 100), unsettled());
    expect(txn.status).toBe('Declined');
    await expect(voidSale(MERCHANT, txn.transactionId, unsettled())).rejects.toBeInstanceOf(BadRequestError);
    await expect(refundSale(MERCHANT, txn.transactionId, 100, newId(), settled())).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

describe("a void's event", () => {
  /** Another change of the sale that announced an event (a debit's clearing moves it to 2). */
  const announcedMeanwhile = (transactionId: string) =>
    table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.transaction(transactionId),
        UpdateExpression: 'SET eventSeq = :two, cleared = :yes',
        ExpressionAttributeValues: { ':two': 2, ':yes': true },
      }),
    );
  const voidedEvents = async (transactionId: string) =>
    (await eventStore().page(MERCHANT, { objectId: transactionId }, 100)).events
      .filter((e) => e.type === 'transaction.voided')
      .map((e) => e.sequence);

  test.each([
    ['before the void was asked', 'before'],
    ['while the processor voided it', 'during'],
  ] as const)(
    'defect: a sale whose events had moved on (%s: a debit cleared) was announced voided as its second event, the number its clearing has: it is announced as its third',
    async (_, when) => {
      const txn = await runSale(sale(await aProfile(), 1500), unsettled());
      expect(txn).toMatchObject({ status: 'Approved', eventSeq: 1 });
      if (when === 'before') await announcedMeanwhile(txn.transactionId);
      else {
        const voidCall = processor.void.bind(processor);
        jest.spyOn(processor, 'void').mockImplementationOnce(async (request) => {
          await announcedMeanwhile(txn.transactionId);
          return voidCall(request);
        });
      }
      expect(await voidSale(MERCHANT, txn.transactionId, unsettled())).toMatchObject({ status: 'Voided' });
      expect((await transactionStore().find(txn.transactionId))!.transaction.eventSeq).toBe(3);
      expect(await voidedEvents(txn.transactionId)).toEqual([3]);
      jest.restoreAllMocks();
    },
  );
});
