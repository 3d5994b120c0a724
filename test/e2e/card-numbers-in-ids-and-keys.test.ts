/**
 * Card numbers through other doors than free text, against the local runtime: a path id and an
 * `Idempotency-Key` that hold one are refused without echoing it, and neither the answers nor the
 * runtime's log carry it; idempotency keys are kept by a keyed hash, and a key kept as written
 * before that (its record still alive) still replays: one key, one charge.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { call, MID } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import { idempotencyRecordKey } from '#support/idempotency-records';
import { closeLocalTable, localTable } from '#support/notifications';

/** A Visa number of this run alone (Luhn-valid), so that the runtime's log is searched for it only. */
function freshCardNumber(): string {
  const body = `4${Array.from({ length: 14 }, () => randomInt(10)).join('')}`;
  for (let d = 0; d <= 9; d++) {
    const digits = `${body}${d}`;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let n = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
      sum += n;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error('unreachable');
}

const PAN = freshCardNumber();
const grouped = PAN.replace(/(\d{4})(?=\d)/g, '$1-');
const v1 = `/v1/rest/merchants/${MID}`;
const runtimeLog = (): string => readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.log'), 'utf8');

let profileId: string;
beforeAll(async () => {
  profileId = await aProfile();
}, 20_000);
afterAll(() => closeLocalTable());

/** Approved sandbox charges of the sale API for `amount` (ledger rows under a `sale:` key). */
async function charges(amount: number): Promise<number> {
  const { doc, tableName } = localTable();
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'entity = :e AND kind = :k AND amountCents = :a AND merchantId = :m',
        ExpressionAttributeValues: {
          ':e': 'sandbox-ledger',
          ':k': 'SALE',
          ':a': Math.round(amount * 100),
          ':m': MID,
        },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    count += page.Items?.length ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

test('defect: a card number in a path id is echoed in the 400 and logged', async () => {
  for (const id of [PAN, grouped]) {
    const res = await call('GET', `${v1}/payors/${id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'PayorID must be a UUID (got "[card number]")', responseCode: 400 });
    expect(res.text).not.toContain(PAN.slice(0, 12));
  }
  const log = runtimeLog();
  expect(log).toContain('PayorID must be a UUID (got \\"[card number]\\")');
  expect(log).not.toContain(PAN);
  expect(log).not.toContain(grouped);
});

test('defect: an Idempotency-Key that is a card number is accepted, echoed in the 422 and stored as written', async () => {
  const amount = 6.41;
  const before = await charges(amount);
  for (const key of [PAN, grouped, `order:${PAN}`]) {
    const res = await call(
      'POST',
      `${v1}/transactions`,
      { profileId, amount },
      { headers: { 'Idempotency-Key': key } },
    );
    expect([res.status, res.body]).toEqual([
      400,
      { message: 'Idempotency-Key must not contain a card number', responseCode: 400 },
    ]);
    // The body's idempotencyKey too, without echoing it.
    const inBody = await call('POST', `${v1}/transactions`, { profileId, amount, idempotencyKey: key });
    expect(inBody.status).toBe(400);
    expect(inBody.body.message).toMatch(/^idempotencyKey must not contain a card number/);
    expect(inBody.text).not.toContain(PAN);
  }
  expect(await charges(amount)).toBe(before);
  expect(runtimeLog()).not.toContain(PAN);
  const { doc, tableName } = localTable();
  const { Items } = await doc.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: 'entity = :e',
      ExpressionAttributeValues: { ':e': 'idempotency' },
      ConsistentRead: true,
    }),
  );
  expect(JSON.stringify(Items)).not.toContain(PAN);
});

test('an idempotency key is kept by its keyed hash: no record holds it as written', async () => {
  const key = `e2e-${randomUUID()}`;
  const res = await call(
    'POST',
    `${v1}/transactions`,
    { profileId, amount: 6.42 },
    { headers: { 'Idempotency-Key': key } },
  );
  expect(res.status).toBe(201);
  const { doc, tableName } = localTable();
  const { Item } = await doc.send(
    new GetCommand({
      TableName: tableName,
      Key: idempotencyRecordKey(MID, 'sale', key),
      ConsistentRead: true,
    }),
  );
  expect(Item).toMatchObject({ state: 'done', resourceId: res.body.transactionId });
  const { Items } = await doc.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: 'entity = :e',
      ExpressionAttributeValues: { ':e': 'idempotency' },
      ConsistentRead: true,
    }),
  );
  expect(JSON.stringify(Items)).not.toContain(key);
});

test('a replay of a key stored the old way (as written) still replays: the first answer, no second charge', async () => {
  const key = `e2e-${randomUUID()}`;
  const amount = 6.43;
  const body = { profileId, amount };
  const headers = { 'Idempotency-Key': key };
  const first = await call('POST', `${v1}/transactions`, body, { headers });
  expect(first.status).toBe(201);
  // The record as the service kept it before keys were hashed: by the key as written.
  const { doc, tableName } = localTable();
  const hashed = idempotencyRecordKey(MID, 'sale', key);
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: hashed, ConsistentRead: true }),
  );
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...Item, ...keys.idempotencyAsWritten(MID, 'sale', key) },
    }),
  );
  await doc.send(new DeleteCommand({ TableName: tableName, Key: hashed }));
  const charged = await charges(amount);

  const replay = await call('POST', `${v1}/transactions`, body, { headers });
  expect({ status: replay.status, body: replay.body }).toEqual({ status: first.status, body: first.body });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  // Another request with it is still refused, and nothing new is charged or kept.
  const other = await call('POST', `${v1}/transactions`, { ...body, amount: 6.44 }, { headers });
  expect(other.status).toBe(422);
  expect(await charges(amount)).toBe(charged);
  const again = await doc.send(new GetCommand({ TableName: tableName, Key: hashed, ConsistentRead: true }));
  expect(again.Item).toBeUndefined();
});
