/**
 * Issue 23 item 2, as a new user meets it: the TypeScript client against the local runtime through
 * a loopback proxy that loses answers on purpose. A dropped response to `addPayment` is retried
 * with the same Idempotency-Key and leaves one payment; a sale whose first attempt "crashed" after
 * approval (the answer lost, its key's record left running as a dead Lambda leaves it) is waited out
 * through the 409s until the service resumes it, and is charged once at the sandbox.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ScheduledPaymentsClient } from '../../client/index';
import { idempotencyRecordKey } from '#support/idempotency-records';
import { baseUrl, call, futureDate, MID, TESTER, tokenFor } from '#support/api';
import { closeLocalTable, localTable } from '#support/notifications';
import { makeResources, type Ids } from '#support/security-operations';

/** What the proxy does to one exchange: forward it, or forward it and lose the answer. */
type Fault = (req: IncomingMessage) => 'pass' | 'drop';

let proxy: Server;
let proxyUrl: string;
let fault: Fault = () => 'pass';
/** Called after the upstream answered a request whose answer is dropped, before the drop. */
let beforeDrop: (req: IncomingMessage) => Promise<void> = async () => {};
const seen: { method: string; url: string; key: string | undefined; status: number; dropped: boolean }[] = [];

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const verdict = fault(req);
  const upstream = new URL(req.url ?? '/', baseUrl());
  const out = request(upstream, { method: req.method, headers: req.headers }, (answer) => {
    const chunks: Buffer[] = [];
    answer.on('data', (c: Buffer) => chunks.push(c));
    answer.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        key: req.headers['idempotency-key'] as string | undefined,
        status: answer.statusCode ?? 0,
        dropped: verdict === 'drop',
      });
      if (verdict === 'drop') {
        // The service did the work; its answer never reaches the client.
        void beforeDrop(req).then(() => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.end(Buffer.concat(chunks));
    });
  });
  out.on('error', () => res.socket?.destroy());
  out.end(body);
}

let ids: Ids;
let client: ScheduledPaymentsClient;

beforeAll(async () => {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  client = new ScheduledPaymentsClient({
    baseUrl: proxyUrl,
    tokenUrl: `${proxyUrl}/oauth2/token`,
    clientId: TESTER.id,
    clientSecret: TESTER.secret,
  });
  ids = await makeResources(MID, await tokenFor());
}, 30_000);

afterAll(async () => {
  closeLocalTable();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
});

beforeEach(() => {
  fault = () => 'pass';
  beforeDrop = async () => {};
  seen.length = 0;
});

/**
 * Sandbox charges made by the sale API (approved SALE ledger rows under a `sale:` key) of this
 * merchant for `amount`, read from the table. Scheduled payments charge under their own keys: a
 * group another file of this worker processed (processing-supervision charges 2.00 to 8.19 for
 * the same merchant) is not counted as a charge of this file's sale, as it once was.
 */
async function chargesOf(amount: number): Promise<number> {
  const { doc, tableName } = localTable();
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression:
          'entity = :e AND kind = :k AND amountCents = :a AND merchantId = :m AND begins_with(idempotencyKey, :sale)',
        ExpressionAttributeValues: {
          ':e': 'sandbox-ledger',
          ':k': 'SALE',
          ':a': Math.round(amount * 100),
          ':m': MID,
          ':sale': 'sale:',
        },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    count += page.Items?.filter((i) => (i.result as { approved?: boolean }).approved === true).length ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

test('a dropped response to addPayment: retried with the same key, one payment in the group', async () => {
  const group = await client.createGroup(MID, {
    servicePayId: MID,
    scheduleDate: futureDate(5),
    scheduleHour: 7,
    locationId: 1,
  });
  const groupId = String(group.paymentGroupId);
  let first = true;
  fault = (req) => {
    const drop = first && req.method === 'POST' && /\/payments$/.test(req.url ?? '');
    if (drop) first = false;
    return drop ? 'drop' : 'pass';
  };
  const amount = 6.47;
  const payment = await client.addPayment(MID, groupId, {
    paymentGroupId: groupId,
    profileId: ids.profileId,
    amount,
  });
  const posts = seen.filter((s) => s.method === 'POST' && s.url.endsWith('/payments'));
  expect(posts.map((p) => p.dropped)).toEqual([true, false]);
  expect(posts[0]!.key).toBeDefined();
  expect(posts[1]!.key).toBe(posts[0]!.key);
  const listed = await call('GET', `/rest/merchants/${MID}/groups/${groupId}/payments`);
  const same = (listed.body as { paymentId: string; amount: number }[]).filter((p) => p.amount === amount);
  expect(same.map((p) => p.paymentId)).toEqual([payment.paymentId]);
}, 30_000);

test('a sale whose first attempt crashed after approval: the client waits it out, one charge', async () => {
  const amount = 7.31;
  let first = true;
  fault = (req) => {
    const drop = first && req.method === 'POST' && /\/transactions$/.test(req.url ?? '');
    if (drop) first = false;
    return drop ? 'drop' : 'pass';
  };
  // As a Lambda killed after the approval leaves it: the key's record still running, its lease
  // (30 s in the service) here 3 s ahead so the test stays short.
  beforeDrop = async (req) => {
    const key = req.headers['idempotency-key'] as string;
    const { doc, tableName } = localTable();
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: idempotencyRecordKey(MID, 'sale', key),
        UpdateExpression: 'SET #state = :running, leaseUntil = :lease REMOVE #response, responseGz',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
        ExpressionAttributeValues: { ':running': 'in-progress', ':lease': Date.now() + 3_000 },
      }),
    );
  };
  const sale = await client.createSale(MID, { profileId: ids.profileId, amount });
  expect(sale.status).toBe('Approved');
  const posts = seen.filter((s) => s.method === 'POST' && s.url.endsWith('/transactions'));
  expect(posts[0]!.dropped).toBe(true);
  // The retries met the running record (409 with Retry-After) until its lease ran out.
  expect(posts.some((p) => p.status === 409)).toBe(true);
  expect(posts.at(-1)!.status).toBe(201);
  expect(new Set(posts.map((p) => p.key)).size).toBe(1);
  const transactionId = String(sale.transactionId);
  expect((await call('GET', `/v1/rest/merchants/${MID}/transactions/${transactionId}`)).body.status).toBe(
    'Approved',
  );
  expect(await chargesOf(amount)).toBe(1);
}, 30_000);

test('the key is on the error: resending with it answers what the first request did', async () => {
  const amount = 8.13;
  // Every answer to the sale is lost: the client gives up with a network error naming its key.
  fault = (req) => (req.method === 'POST' && /\/transactions$/.test(req.url ?? '') ? 'drop' : 'pass');
  const error = (await client.createSale(MID, { profileId: ids.profileId, amount }).then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; idempotencyKey?: string };
  expect(error).toMatchObject({ status: 0, idempotencyKey: expect.any(String) });
  fault = () => 'pass';
  const again = await client.createSale(
    MID,
    { profileId: ids.profileId, amount },
    { idempotencyKey: error.idempotencyKey! },
  );
  expect(again.status).toBe('Approved');
  expect(await chargesOf(amount)).toBe(1);
}, 30_000);
