/**
 * The TypeScript client's retry rules (docs/integrating.md "TypeScript client") against a real HTTP server on
 * 127.0.0.1 that fails on purpose. The clock is injected: every wait and read timeout is recorded and
 * fired by the test, so the exact attempts and waits are asserted without waiting for them. A stalled
 * connection is injected (createConnection) for the connect timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import {
  CONNECT_TIMEOUT_MS,
  IN_PROGRESS_WAIT_MS,
  ApiError,
  NetworkError,
  ScheduledPaymentsClient,
  backoffMs,
  type ClientOptions,
  type Clock,
  type RequestBody,
} from '../../client/index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  key: string | undefined;
  body: string;
}

const MID = '32350000001';
const GROUP = '01890a5d-ac96-774b-bcce-b302099a8057';

/** A clock whose sleeps return at once and whose timers fire only when the test says so. */
function fakeClock() {
  const sleeps: number[] = [];
  const timers = new Set<{ ms: number; fn: () => void }>();
  let now = 1_700_000_000_000;
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    setTimer: (ms, fn) => {
      const timer = { ms, fn };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    random: () => 0.5,
  };
  return {
    clock,
    sleeps,
    timers,
    advance: (ms: number) => (now += ms),
    fire: (ms: number) => [...timers].filter((t) => t.ms === ms).forEach((t) => (timers.delete(t), t.fn())),
  };
}

let server: Server;
let baseUrl: string;
let script: Handler[];
let seen: Seen[];
let tokensIssued: number;
let arrived: (() => void) | undefined;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const answer =
  (status: number, body: unknown): Handler =>
  (_req, res) =>
    json(res, status, body);
const group = { paymentGroupId: GROUP, payments: [] };
const newGroup: RequestBody<'CreateGroup'> = {
  servicePayId: MID,
  scheduleDate: '2030-01-01',
  scheduleHour: 9,
  locationId: 1,
  payments: [],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/oauth2/token') {
        tokensIssued += 1;
        return json(res, 200, {
          access_token: `token-${tokensIssued}`,
          token_type: 'Bearer',
          expires_in: 21_600,
        });
      }
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        key: req.headers['idempotency-key'] as string | undefined,
        body,
      });
      arrived?.();
      const handler = script.shift() ?? answer(200, group);
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let time: ReturnType<typeof fakeClock>;
let client: ScheduledPaymentsClient;

beforeEach(() => {
  script = [];
  seen = [];
  tokensIssued = 0;
  arrived = undefined;
  time = fakeClock();
  client = clientWith();
});

/** A client of the test server on the fake clock, with `extra` options. */
const clientWith = (extra: Partial<ClientOptions> = {}) =>
  new ScheduledPaymentsClient({
    baseUrl,
    tokenUrl: `${baseUrl}/oauth2/token`,
    clientId: 'id',
    clientSecret: 'secret',
    clock: time.clock,
    ...extra,
  });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => Promise.reject(new Error('resolved')),
    (e) => e,
  );

test('401 once then OK: the token is fetched again and the call retried once', async () => {
  script = [answer(401, { message: 'Unauthorized', responseCode: 401 })];
  await expect(client.getGroup(MID, GROUP)).resolves.toEqual(group);
  expect(seen.map((s) => s.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  expect(tokensIssued).toBe(2);
  expect(time.sleeps).toEqual([]);
});

test('401 twice: retried once only, then the typed 401', async () => {
  script = [
    answer(401, { message: 'Unauthorized', responseCode: 401 }),
    answer(401, { message: 'Unauthorized' }),
  ];
  const error = await failure(client.getGroup(MID, GROUP));
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ responseCode: 401, message: 'Unauthorized' });
  expect(seen).toHaveLength(2);
});

test('503 twice then OK: 3 attempts, waits of 1 s and 2 s, the same idempotencyKey every time', async () => {
  const unavailable = answer(503, { message: 'Service unavailable', responseCode: 503 });
  script = [unavailable, unavailable, answer(201, group)];
  await expect(client.createGroup(MID, newGroup)).resolves.toEqual(group);
  expect(seen).toHaveLength(3);
  expect(time.sleeps).toEqual([1000, 2000]);
  const keys = seen.map((s) => (JSON.parse(s.body) as { idempotencyKey: string }).idempotencyKey);
  expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(keys).size).toBe(1);
});

test('500 three times: gives up after 3 attempts with a typed error', async () => {
  const broken = answer(500, { message: 'Internal error', responseCode: 500 });
  script = [broken, broken, broken, answer(200, group)];
  const error = await failure(client.getGroup(MID, GROUP));
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ message: 'Internal error', responseCode: 500, errors: [], attempts: 3 });
  expect(seen).toHaveLength(3);
  expect(time.sleeps).toEqual([1000, 2000]);
});

test('400 with errors[]: no retry, a typed error carrying the errors', async () => {
  const errors = [
    { field: 'amount', message: 'amount must be greater than 0' },
    { field: 'payor.email', message: 'payor.email must be an e-mail address' },
  ];
  script = [answer(400, { message: errors[0]!.message, responseCode: 400, errors })];
  const error = await failure(
    client.createSale(MID, { profileId: 'p/m', amount: 0, idempotencyKey: 'mine' }),
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({
    message: 'amount must be greater than 0',
    responseCode: 400,
    errors,
    attempts: 1,
  });
  expect(seen).toHaveLength(1);
  expect(JSON.parse(seen[0]!.body)).toMatchObject({ idempotencyKey: 'mine' });
  expect(time.sleeps).toEqual([]);
});

test('404: no retry', async () => {
  script = [answer(404, { message: 'Group not found', responseCode: 404 })];
  const error = await failure(client.getGroup(MID, GROUP));
  expect(error).toMatchObject({ message: 'Group not found', responseCode: 404, attempts: 1 });
  expect(seen).toHaveLength(1);
  expect(time.sleeps).toEqual([]);
});

test('other 4xx (409) are not retried either', async () => {
  script = [answer(409, { message: 'Key in use', responseCode: 409 })];
  await expect(failure(client.refundTransaction(MID, GROUP, { amount: 1 }))).resolves.toMatchObject({
    responseCode: 409,
  });
  expect(seen).toHaveLength(1);
});

test('a read that stalls past the 30 s read timeout is a network error, retried after 1 s', async () => {
  const stall: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"paymentGroupId":'); // and nothing more
  };
  script = [stall];
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const call = client.getGroup(MID, GROUP);
  await first;
  // Headers arrive, then the body stops: wait for the body's read timer (restarted after the headers).
  await waitFor(() => [...time.timers].length === 1 && seen.length === 1);
  time.fire(30_000);
  await expect(call).resolves.toEqual(group);
  expect(seen).toHaveLength(2);
  expect(time.sleeps).toEqual([1000]);
});

test('stalled three times: a NetworkError after 3 attempts', async () => {
  const silent: Handler = () => undefined; // never answers
  script = [silent, silent, silent];
  const call = failure(client.getGroup(MID, GROUP));
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    await waitFor(() => seen.length === attempt && time.timers.size === 1);
    expect([...time.timers][0]!.ms).toBe(30_000);
    time.fire(30_000);
  }
  const error = await call;
  expect(error).toBeInstanceOf(NetworkError);
  expect(error).toMatchObject({ responseCode: 0, attempts: 3, errors: [] });
  expect((error as Error).message).toContain('read timeout');
  expect(time.sleeps).toEqual([1000, 2000]);
});

test('the token is cached and refreshed shortly before it expires', async () => {
  await client.getGroup(MID, GROUP);
  await client.getGroup(MID, GROUP);
  expect(tokensIssued).toBe(1);
  time.advance(21_600_000 - 61_000);
  await client.getGroup(MID, GROUP);
  expect(tokensIssued).toBe(1);
  time.advance(2_000);
  await client.getGroup(MID, GROUP);
  expect(tokensIssued).toBe(2);
});

test('allPayments pages with pageToken until the last page', async () => {
  const page = (items: string[], nextPageToken?: string): Handler =>
    answer(200, {
      meta: { page: 1, pageSize: 2, totalItems: 3, nextPageToken },
      items: items.map((paymentId) => ({ paymentId })),
    });
  script = [page(['a', 'b'], 'next/1'), page(['c'])];
  const ids: string[] = [];
  for await (const payment of client.allPayments(MID, GROUP, 2)) ids.push(payment.paymentId ?? '');
  expect(ids).toEqual(['a', 'b', 'c']);
  expect(seen.map((s) => s.url)).toEqual([
    `/rest/merchants/${MID}/groups/${GROUP}/payments?pageNumber=1&pageSize=2`,
    `/rest/merchants/${MID}/groups/${GROUP}/payments?pageToken=next%2F1&pageSize=2`,
  ]);
});

test("a base URL with a path (a stage's ApiUrl, `.../dev/`) keeps it", async () => {
  await clientWith({ baseUrl: `${baseUrl}/dev/` }).getGroup(MID, GROUP);
  expect(seen.map((s) => s.url)).toEqual([`/dev/rest/merchants/${MID}/groups/${GROUP}`]);
});

test('backoff: about 1, 2 and 4 s, each within ±200 ms', () => {
  expect([1, 2, 3].map((n) => backoffMs(n, () => 0.5))).toEqual([1000, 2000, 4000]);
  expect(backoffMs(1, () => 0)).toBe(800);
  expect(backoffMs(1, () => 0.999_999)).toBe(1200);
  expect(backoffMs(2, () => 0)).toBe(1800);
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition not met');
}

describe('connect timeout', () => {
  /** A connection that never completes: what a black-holed address looks like to the client. */
  const stalledConnection = () => {
    const socket = new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() });
    return Object.assign(socket, { connecting: true });
  };

  test('a connection not made within 10 s is a network error, retried after 1 s on a new one', async () => {
    const port = (server.address() as AddressInfo).port;
    let connections = 0;
    client = clientWith({
      createConnection: () => (++connections === 1 ? stalledConnection() : connect(port, '127.0.0.1')),
    });
    const call = client.getGroup(MID, GROUP);
    await waitFor(() => time.timers.size === 1);
    // Only the connect timer runs while connecting (the read timer starts once connected).
    expect([...time.timers].map((t) => t.ms)).toEqual([10_000]);
    time.fire(10_000);
    await expect(call).resolves.toEqual(group);
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(time.sleeps).toEqual([1000]);
  });

  test('never connecting: a NetworkError naming the connect timeout after 3 attempts', async () => {
    client = clientWith({ connectTimeoutMs: CONNECT_TIMEOUT_MS, createConnection: stalledConnection });
    const call = failure(client.getGroup(MID, GROUP));
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await waitFor(() => time.timers.size === 1 && time.sleeps.length === attempt - 1);
      expect([...time.timers][0]!.ms).toBe(10_000);
      time.fire(10_000);
    }
    const error = await call;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ responseCode: 0, attempts: 3 });
    expect((error as Error).message).toContain('connection timeout');
    expect(time.sleeps).toEqual([1000, 2000]);
    expect(tokensIssued).toBe(0);
  });
});

describe('Idempotency-Key (issue 23)', () => {
  const inProgress =
    (seconds: number): Handler =>
    (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json', 'retry-after': String(seconds) });
      res.end(
        JSON.stringify({
          message: 'a request with Idempotency-Key k is still in progress',
          responseCode: 409,
        }),
      );
    };
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test('every POST carries a key, the same on every attempt; reads and deletes carry none', async () => {
    const unavailable = answer(503, { message: 'Service unavailable', responseCode: 503 });
    script = [unavailable, answer(201, { paymentId: 'p' })];
    await client.addPayment(MID, GROUP, { paymentGroupId: GROUP, profileId: 'a/b', amount: 1 });
    await client.getGroup(MID, GROUP);
    await client.deleteGroup(MID, GROUP);
    expect(seen[0]!.key).toMatch(UUID);
    expect(seen.map((s) => s.key)).toEqual([seen[0]!.key, seen[0]!.key, undefined, undefined]);
  });

  test("a sale's header key is its body's idempotencyKey; the caller's key is used as given", async () => {
    script = [answer(201, {}), answer(201, {})];
    await client.createSale(MID, { profileId: 'a/b', amount: 1 });
    await client.createSale(MID, { profileId: 'a/b', amount: 1 }, { idempotencyKey: 'order-42' });
    const bodyKeys = seen.map((s) => (JSON.parse(s.body) as { idempotencyKey: string }).idempotencyKey);
    expect(seen.map((s) => s.key)).toEqual(bodyKeys);
    expect(bodyKeys[0]).toMatch(UUID);
    expect(bodyKeys[1]).toBe('order-42');
  });

  test('409 still in progress is waited out as Retry-After says, with the same key, until answered', async () => {
    // A first attempt that crashed after approval holds its key for its 30 s lease.
    script = [...Array.from({ length: 6 }, () => inProgress(5)), answer(201, { transactionId: 't' })];
    await expect(client.createSale(MID, { profileId: 'a/b', amount: 1 })).resolves.toEqual({
      transactionId: 't',
    });
    expect(time.sleeps).toEqual([5000, 5000, 5000, 5000, 5000, 5000]);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
  });

  test('still in progress past the wait budget: an error with the status, the key and every attempt', async () => {
    let calls = 0;
    script = Array.from({ length: 40 }, () => (req: IncomingMessage, res: ServerResponse) => {
      calls += 1;
      time.advance(5_000);
      inProgress(5)(req, res);
    });
    const error = await failure(client.voidTransaction(MID, 't', { idempotencyKey: 'void-1' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      responseCode: 409,
      idempotencyKey: 'void-1',
      attempts: calls,
    });
    expect(calls * 5_000).toBeGreaterThanOrEqual(IN_PROGRESS_WAIT_MS - 10_000);
    expect(calls * 5_000).toBeLessThanOrEqual(IN_PROGRESS_WAIT_MS + 10_000);
  });

  test.each([429, 502, 504])('%i is retried with backoff and the same key', async (status) => {
    script = [answer(status, { message: 'busy', responseCode: status }), answer(201, group)];
    await expect(client.createGroup(MID, newGroup)).resolves.toEqual(group);
    expect(time.sleeps).toEqual([1000]);
    expect(seen[0]!.key).toBe(seen[1]!.key);
  });

  test('a 429 Retry-After longer than the backoff is waited instead', async () => {
    script = [
      (_req, res) => {
        res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
        res.end('{"message":"slow down","responseCode":429}');
      },
    ];
    await client.processGroup(MID, GROUP);
    expect(time.sleeps).toEqual([3000]);
  });

  test('a network error on a POST gives up with the key, so the application retries with it', async () => {
    const silent: Handler = () => undefined;
    script = [silent, silent, silent];
    const call = failure(client.createPayor(MID, { paymentMethod: { type: 'card' } } as never));
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await waitFor(() => seen.length === attempt && time.timers.size === 1);
      time.fire(30_000);
    }
    const error = await call;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ status: 0, attempts: 3, idempotencyKey: seen[0]!.key });
    expect(seen[0]!.key).toMatch(UUID);
  });

  test("status is the HTTP status; responseCode the body's own", async () => {
    script = [answer(402, { message: 'Declined', responseCode: '05' })];
    const error = await failure(client.createSale(MID, { profileId: 'a/b', amount: 1 }));
    expect(error).toMatchObject({ status: 402, responseCode: '05' });
  });
});
