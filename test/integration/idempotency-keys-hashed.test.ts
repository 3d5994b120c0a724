/**
 * Idempotency keys kept by a keyed hash (lambdas/store/idempotency.ts, shared/keyed-hash.ts),
 * against DynamoDB Local: no record holds a key as written, and records made before keys were
 * hashed (kept by the key as written) are still found, replayed, refused or resumed for as long
 * as they live: a missed replay would be a second charge.
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { canonicalJson, idempotent, unkeyedRequestHash } from '#core/idempotency';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { ConflictError, UnprocessableEntityError } from '#shared/errors';
import { hashKeyOf, keyedDigest } from '#shared/keyed-hash';
import { keys } from '#store/keys';
import { newId } from '#shared/ids';
import { epoch, RECORD_TTL_SECONDS } from '#store/items';
import type { StoredResponse } from '#store/idempotency';
import { createTestTable, type TestTable } from '#support/ddb';

let table: TestTable;
const MERCHANT = '32350000001';
const now = new Date('2031-04-01T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
});
afterAll(() => table.drop());

/** Every item of the table, as JSON text. */
async function tableText(): Promise<string> {
  const { Items } = await ddb().send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return JSON.stringify(Items ?? []);
}

/** A record as the service wrote it before keys were hashed: by the key as written, with the request's plain hash. */
async function storeAsWritten(
  key: string,
  request: unknown,
  record:
    | { state: 'done'; response: StoredResponse }
    | { state: 'in-progress'; leaseUntil: number; resourceId: string },
): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...keys.idempotencyAsWritten(MERCHANT, 'sale', key),
        entity: 'idempotency',
        requestHash: unkeyedRequestHash(request),
        resourceId: 'resourceId' in record ? record.resourceId : 'first-id',
        expiresAt: epoch(now) + RECORD_TTL_SECONDS,
        ...record,
      },
    }),
  );
}

test('defect: idempotency keys are stored as written', async () => {
  const key = `order-${newId()}`;
  const ref = { merchantId: MERCHANT, scope: 'sale', key };
  await idempotent(ref, { amount: 1 }, 'r-1', now, async (id) => ({ status: 201, body: { id } }), 'header');
  expect(await tableText()).not.toContain(key);
  // The record is kept by the key's HMAC under the configured key, bound to merchant and scope.
  const digest = keyedDigest(await hashKeyOf(process.env.IDEMPOTENCY_HASH_KEY!), [MERCHANT, 'sale', key]);
  const { Item } = await ddb().send(
    new GetCommand({ TableName: table.tableName, Key: keys.idempotency(MERCHANT, 'sale', digest) }),
  );
  expect(Item).toMatchObject({ state: 'done', response: { status: 201, body: { id: 'r-1' } } });
  // The same key of another merchant or scope is another record.
  expect(keyedDigest(Buffer.alloc(32, 1), [MERCHANT, 'sale', key])).not.toBe(
    keyedDigest(Buffer.alloc(32, 1), ['32350000002', 'sale', key]),
  );
});

/** The record a key of the `payor` scope is kept by. */
async function payorRecord(key: string): Promise<Record<string, unknown> | undefined> {
  const digest = keyedDigest(await hashKeyOf(process.env.IDEMPOTENCY_HASH_KEY!), [MERCHANT, 'payor', key]);
  const { Item } = await ddb().send(
    new GetCommand({ TableName: table.tableName, Key: keys.idempotency(MERCHANT, 'payor', digest) }),
  );
  return Item;
}

describe("a request's hash", () => {
  const card = {
    email: 'parent@example.com',
    paymentMethod: { cardNumber: '4111111111111111', expirationDate: '12/30', cardholderName: 'A Parent' },
  };
  const work = async () => ({ status: 201, body: { payorId: 'p-1', last4: '1111' } });

  test('defect: the hash kept with the idempotency key of a request that carried a card number was its plain SHA-256, searchable back to the number beside the last four digits', async () => {
    const key = `payor-${newId()}`;
    const ref = { merchantId: MERCHANT, scope: 'payor', key };
    await idempotent(ref, card, 'p-1', now, work, 'header');
    const kept = (await payorRecord(key))?.requestHash;
    const plain = createHash('sha256').update(canonicalJson(card)).digest('hex');
    expect(kept).toEqual(expect.any(String));
    expect(kept).not.toBe(plain);
    // The HMAC of the request's canonical JSON under the service's key, as the keys' own digests.
    const hashKey = await hashKeyOf(process.env.IDEMPOTENCY_HASH_KEY!);
    expect(kept).toBe(keyedDigest(hashKey, ['request', canonicalJson(card)]));
    expect(await tableText()).not.toContain(plain);
    // Still a request's fingerprint: the same one replays, another card is refused.
    expect(await idempotent(ref, card, 'p-2', later(1), work, 'header')).toMatchObject({ replayed: true });
    const other = { ...card, paymentMethod: { ...card.paymentMethod, cardNumber: '5555555555554444' } };
    await expect(idempotent(ref, other, 'p-3', later(2), work, 'header')).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
  });

  test('a record made before request hashes were keyed (its plain hash) still replays its request and refuses another while it lives', async () => {
    const key = `payor-${newId()}`;
    const ref = { merchantId: MERCHANT, scope: 'payor', key };
    await idempotent(ref, card, 'p-1', now, work, 'header');
    const digest = keyedDigest(await hashKeyOf(process.env.IDEMPOTENCY_HASH_KEY!), [MERCHANT, 'payor', key]);
    await ddb().send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...(await payorRecord(key)),
          ...keys.idempotency(MERCHANT, 'payor', digest),
          requestHash: unkeyedRequestHash(card),
        },
      }),
    );
    let runs = 0;
    const counted = async () => {
      runs++;
      return work();
    };
    expect(await idempotent(ref, card, 'p-2', later(1), counted, 'header')).toEqual({
      status: 201,
      body: { payorId: 'p-1', last4: '1111' },
      replayed: true,
    });
    await expect(
      idempotent(ref, { ...card, email: 'other@example.com' }, 'p-3', later(2), counted, 'header'),
    ).rejects.toBeInstanceOf(UnprocessableEntityError);
    expect(runs).toBe(0);
  });
});

describe('records kept by the key as written, before keys were hashed', () => {
  test('a replay of a key stored the old way still replays: the work does not run again (no second charge)', async () => {
    const key = `legacy-${newId()}`;
    const request = { profileId: 'p/m', amount: 12.5 };
    const first = { status: 201, body: { transactionId: 'txn-first', status: 'Approved' } };
    await storeAsWritten(key, request, { state: 'done', response: first });
    let charges = 0;
    const replay = await idempotent(
      { merchantId: MERCHANT, scope: 'sale', key },
      request,
      'txn-second',
      later(1000),
      async () => {
        charges++;
        return { status: 201, body: { transactionId: 'txn-second' } };
      },
      'header',
    );
    expect(replay).toEqual({ ...first, replayed: true });
    expect(charges).toBe(0);
    // Nothing was made under the hashed key: the old record answers for the key while it lives.
    expect(await tableText()).not.toContain('txn-second');
  });

  test('another request with it is refused (422), one still running is 409', async () => {
    const key = `legacy-${newId()}`;
    await storeAsWritten(key, { amount: 1 }, { state: 'done', response: { status: 201, body: {} } });
    const ref = { merchantId: MERCHANT, scope: 'sale', key };
    const work = async () => ({ status: 201, body: 'ran' });
    await expect(idempotent(ref, { amount: 2 }, 'x', later(1), work, 'header')).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
    const running = `legacy-${newId()}`;
    await storeAsWritten(
      running,
      { amount: 1 },
      {
        state: 'in-progress',
        leaseUntil: later(20_000).getTime(),
        resourceId: 'r-first',
      },
    );
    await expect(
      idempotent({ ...ref, key: running }, { amount: 1 }, 'x', later(1), work, 'header'),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  test('a request that died half-way under the old key is resumed with its first resource id, and its answer kept there', async () => {
    const key = `legacy-${newId()}`;
    const ref = { merchantId: MERCHANT, scope: 'sale', key };
    await storeAsWritten(
      key,
      { amount: 3 },
      {
        state: 'in-progress',
        leaseUntil: now.getTime() - 1,
        resourceId: 'r-first',
      },
    );
    const resumed = await idempotent(ref, { amount: 3 }, 'r-new', later(1), async (id, wasResumed) => ({
      status: 201,
      body: { id, wasResumed },
    }));
    expect(resumed).toEqual({ status: 201, body: { id: 'r-first', wasResumed: true } });
    const { Item } = await ddb().send(
      new GetCommand({ TableName: table.tableName, Key: keys.idempotencyAsWritten(MERCHANT, 'sale', key) }),
    );
    expect(Item).toMatchObject({ state: 'done', response: { body: { id: 'r-first' } } });
    // And replays from there.
    expect(
      await idempotent(ref, { amount: 3 }, 'r-3', later(2), async () => ({ status: 500, body: null })),
    ).toEqual({ status: 201, body: { id: 'r-first', wasResumed: true }, replayed: true });
  });
});
