/**
 * Issue 23 item 3: the `Idempotency-Key` header on every keyed POST of openapi.json, with Stripe's
 * rules, against the local runtime: the same key and request replay the first answer with
 * `Idempotent-Replayed: true` (nothing done twice); the same key with another request is 422
 * naming the key; a request still running with the key is 409 with `Retry-After`. The body's
 * idempotencyKey of sales, refunds and group creates is the same key.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { routes } from '#contract/routes/index';
import { idempotencyRecordKey } from '#support/idempotency-records';
import { call, futureDate, MID, tokenFor } from '#support/api';
import { closeLocalTable, localTable } from '#support/notifications';
import { unsettledSale } from '#support/settlement-timing';
import {
  bodyOf,
  makeResources,
  operations,
  pathOf,
  SINK_URL,
  type Ids,
  type Operation,
} from '#support/security-operations';
import { idempotencyOf } from '../../scripts/generate-validators';

// The route table's operations (the open health check is none: it takes no key, nor anything else).
const keyed = operations().filter(
  (op) => !op.open && idempotencyOf(routes[op.operationId as keyof typeof routes]),
);

const send = (op: Operation, ids: Ids, key: string, over: { path?: string; body?: unknown }) =>
  call(op.method, over.path ?? pathOf(op, ids), over.body, { headers: { 'Idempotency-Key': key } });

/** Another request for the same key: another body, another path, or (SettleNow) another operation. */
function another(op: Operation, ids: Ids, second: Ids): { path: string; body?: unknown } {
  const body = bodyOf(op, ids) as Record<string, unknown>;
  const path = pathOf(op, ids);
  switch (op.operationId) {
    case 'CreateGroup':
      return { path, body: { ...body, locationId: 2 } };
    case 'AddPayment':
    case 'AddPaymentAlias':
      return { path, body: { ...body, amount: 1.26 } };
    case 'VoidOrRefundGroup':
      return { path, body: { paymentIds: [ids.PaymentID] } };
    case 'ProcessGroup':
    case 'VoidTransaction':
    case 'RotateWebhookSecret':
      return { path: pathOf(op, { ...second, MID: ids.MID }), body };
    case 'ProcessMerchant':
      return { path, body: { scheduleDate: futureDate(9), scheduleHour: 2 } };
    case 'SettleNow':
      return { path: `/rest/merchants/${ids.MID}/process-payments`, body: {} };
    case 'RetryMerchant':
      // No body either: the same key on another operation is another request.
      return { path: `/rest/merchants/${ids.MID}/settle-now` };
    case 'CreatePayor':
      return { path, body: { ...body, email: 'another@example.com' } };
    case 'AddMethod':
      return { path, body: { ...body, expiryMonth: 10 } };
    case 'CreateSale':
      return { path, body: { ...body, amount: 1.51 } };
    case 'RefundTransaction':
      return { path, body: { amount: 0.4 } };
    case 'CreateWebhookEndpoint':
      return { path, body: { ...body, description: 'another' } };
    case 'CreateSeries':
      return { path, body: { ...body, locationId: 8 } };
    case 'ReplayWebhookEvents':
      return { path, body: { since: new Date(Date.now() - 120_000).toISOString() } };
    default:
      throw new Error(`no other request for ${op.operationId}: add one`);
  }
}

/** The key's record made to look as a request still running holds it (its lease 30 s ahead). */
async function holdRecord(op: Operation, ids: Ids, key: string): Promise<void> {
  const declared = idempotencyOf(routes[op.operationId as keyof typeof routes])!;
  const scope = declared.scope.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name as keyof Ids]);
  const { doc, tableName } = localTable();
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: idempotencyRecordKey(MID, scope, key),
      UpdateExpression: 'SET #state = :running, leaseUntil = :lease REMOVE #response, responseGz',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
      ExpressionAttributeValues: { ':running': 'in-progress', ':lease': Date.now() + 30_000 },
    }),
  );
}

let ids: Ids;
let second: Ids;
beforeAll(async () => {
  const token = await tokenFor();
  [ids, second] = [await makeResources(MID, token), await makeResources(MID, token)];
  // A settled sale to refund: the test clock settles the merchant's approved sales now.
  expect((await call('POST', `/rest/merchants/${MID}/settle-now`)).status).toBe(200);
}, 60_000);

/**
 * The ids an operation's first request uses: a void gets an approved sale made just now, still
 * unsettled and not within the void margin of its cut-off (SettleNow's own case settles every
 * approved sale made before it).
 */
async function idsFor(op: Operation): Promise<Ids> {
  if (op.operationId !== 'VoidTransaction') return ids;
  const sale = await unsettledSale(ids.profileId, 4.04);
  return { ...ids, TransactionID: sale.transactionId };
}

afterAll(() => closeLocalTable());

test('every creating or money-moving POST of openapi.json takes the key', () => {
  expect(keyed.map((op) => op.operationId).sort()).toEqual(
    [
      'AddMethod',
      'AddPayment',
      'AddPaymentAlias',
      'CreateGroup',
      'CreatePayor',
      'CreateSale',
      'CreateSeries',
      'CreateWebhookEndpoint',
      'ProcessGroup',
      'ProcessMerchant',
      'RefundTransaction',
      'ReplayWebhookEvents',
      'RetryMerchant',
      'RotateWebhookSecret',
      'SettleNow',
      'VoidOrRefundGroup',
      'VoidTransaction',
    ].sort(),
  );
});

test.each(keyed.map((op) => [op.operationId, op] as const))(
  '%s: a replay answers the first response with Idempotent-Replayed; another request is 422; a running one 409',
  async (_id, op) => {
    const key = `e2e-${randomUUID()}`;
    const mine = await idsFor(op);
    // One body, made once: the same request every time (ReplayWebhookEvents' `since` is a time).
    const request = { path: pathOf(op, mine), body: bodyOf(op, mine) };
    const first = await send(op, mine, key, request);
    expect(first.status).toBeGreaterThanOrEqual(200);
    expect(first.status).toBeLessThan(300);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replay = await send(op, mine, key, request);
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: first.status,
      body: first.body,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const refused = await send(op, mine, key, another(op, mine, second));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      message: `Idempotency-Key ${key} was already used with a different request`,
      responseCode: 422,
    });

    await holdRecord(op, mine, key);
    const running = await send(op, mine, key, request);
    expect(running.status).toBe(409);
    expect(running.body).toEqual({
      message: `a request with Idempotency-Key ${key} is still in progress; retry shortly`,
      responseCode: 409,
    });
    const retryAfter = Number(running.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
  },
  30_000,
);

test('an added payment replayed is one payment; a created endpoint replayed shows the same secret', async () => {
  const key = `e2e-${randomUUID()}`;
  const group = await call('POST', `/rest/merchants/${MID}/groups`, {
    servicePayId: MID,
    scheduleDate: futureDate(4),
    scheduleHour: 6,
    locationId: 1,
  });
  const groupId = group.body.paymentGroupId as string;
  const path = `/rest/merchants/${MID}/groups/${groupId}/payments`;
  const body = { paymentGroupId: groupId, profileId: second.profileId, amount: 7.77 };
  const headers = { 'Idempotency-Key': key };
  const answers = await Promise.all(Array.from({ length: 8 }, () => call('POST', path, body, { headers })));
  const made = answers.filter((a) => a.status === 201);
  expect(made.length).toBeGreaterThanOrEqual(1);
  // Each loser saw the first still running (409) or its stored answer: never a second payment.
  for (const a of answers) expect([201, 409]).toContain(a.status);
  expect(new Set(made.map((a) => a.body.paymentId)).size).toBe(1);
  const listed = await call('GET', path);
  expect((listed.body as { amount: number }[]).filter((p) => p.amount === 7.77)).toHaveLength(1);

  const endpointKey = `e2e-${randomUUID()}`;
  const endpoints = `/v1/rest/merchants/${MID}/webhook-endpoints`;
  const create = () =>
    call('POST', endpoints, { url: SINK_URL }, { headers: { 'Idempotency-Key': endpointKey } });
  const created = await create();
  const again = await create();
  expect(again.body.secret).toMatch(/^whsec_/);
  expect(again.body).toEqual(created.body);
  // The record keeps the secret sealed, never in the clear.
  const { doc, tableName } = localTable();
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: idempotencyRecordKey(MID, 'request', endpointKey) }),
  );
  expect(JSON.stringify(Item)).not.toContain(created.body.secret);
  await call('DELETE', `${endpoints}/${created.body.webhookEndpointId}`);
});

describe('the body idempotencyKey is the same key', () => {
  const sales = `/v1/rest/merchants/${MID}/transactions`;

  test('a sale keyed in the body replays to the header, and the other way round', async () => {
    const key = `e2e-${randomUUID()}`;
    const inBody = await call('POST', sales, { profileId: ids.profileId, amount: 2.22, idempotencyKey: key });
    expect(inBody.status).toBe(201);
    const inHeader = await call(
      'POST',
      sales,
      { profileId: ids.profileId, amount: 2.22 },
      { headers: { 'Idempotency-Key': key } },
    );
    expect(inHeader.status).toBe(201);
    expect(inHeader.body.transactionId).toBe(inBody.body.transactionId);
    expect(inHeader.headers.get('idempotent-replayed')).toBe('true');
  });

  test('a key only in the body keeps its documented 409 for another body; both given must agree (400)', async () => {
    const key = `e2e-${randomUUID()}`;
    await call('POST', sales, { profileId: ids.profileId, amount: 2.33, idempotencyKey: key });
    const other = await call('POST', sales, { profileId: ids.profileId, amount: 2.34, idempotencyKey: key });
    expect(other.status).toBe(409);
    expect(other.body.message).toBe(`idempotencyKey ${key} was already used with a different request`);
    const differ = await call(
      'POST',
      sales,
      { profileId: ids.profileId, amount: 2.35, idempotencyKey: key },
      { headers: { 'Idempotency-Key': `${key}-x` } },
    );
    expect(differ.status).toBe(400);
    expect(differ.body.message).toMatch(/Idempotency-Key and the body's idempotencyKey differ/);
  });

  test.each([['a space inside'], ['x'.repeat(101)], ['a/slash']])(
    'a malformed Idempotency-Key (%s) is 400 naming the header, and nothing is charged',
    async (key) => {
      const amount = 2.44;
      const res = await call(
        'POST',
        sales,
        { profileId: ids.profileId, amount },
        { headers: { 'Idempotency-Key': key } },
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.stringContaining('Idempotency-Key'), responseCode: 400 });
    },
  );
});
