/**
 * The TypeScript client's deletes and error bodies against openapi.json: a real HTTP server on
 * 127.0.0.1 answers as scripted; the clock is injected so that no wait is waited.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ScheduledPaymentsClient, type Clock } from '../../client/index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const MID = '32350000001';
const PAYOR = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e01';
const GROUP = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e02';
const PAYMENT = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e03';
const SERIES = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e04';
const METHOD = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e05';
const REPLACEMENT = '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e06';

let server: Server;
let baseUrl: string;
let script: Handler[];
let seen: { method: string; url: string }[];
let sleeps: number[];

const answer =
  (status: number, body?: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/oauth2/token')
        return answer(200, { access_token: 'token', token_type: 'Bearer', expires_in: 21_600 })(req, res);
      seen.push({ method: req.method ?? '', url: req.url ?? '' });
      (script.shift() ?? answer(500, { message: 'unscripted', responseCode: 500 }))(req, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

let client: ScheduledPaymentsClient;
beforeEach(() => {
  script = [];
  seen = [];
  sleeps = [];
  const clock: Clock = {
    now: () => 1_700_000_000_000,
    sleep: async (ms) => void sleeps.push(ms),
    setTimer: () => () => undefined,
    random: () => 0.5,
  };
  client = new ScheduledPaymentsClient({
    baseUrl,
    tokenUrl: `${baseUrl}/oauth2/token`,
    clientId: 'id',
    clientSecret: 'secret',
    clock,
  });
});

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => Promise.reject(new Error('resolved')),
    (e: unknown) => e,
  );

test("defect: deletePayor's 409 loses the body's `payments` and `series` (openapi: what blocks the deletion): ApiError keeps message and errors only", async () => {
  // openapi.json DeletePayor 409 (and DeleteMethod's): `payments` and `series` list what uses the
  // payor's methods, so that the integrator moves them (replaceWith) and deletes again.
  script = [
    answer(409, {
      message: 'the payor has methods used by 1 pending payment(s) and 1 series',
      responseCode: 409,
      payments: [{ paymentGroupId: GROUP, paymentId: PAYMENT }],
      series: [{ seriesId: SERIES }],
    }),
  ];
  const error = await failure(client.deletePayor(MID, PAYOR));
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(409);
  // On the error's body: the payment and the series to move first.
  expect((error as ApiError).body).toMatchObject({
    payments: [{ paymentGroupId: GROUP, paymentId: PAYMENT }],
    series: [{ seriesId: SERIES }],
  });
});

test('defect: a DELETE done by the service but answered 504 (integration timeout) is retried and reported as a 404 failure', async () => {
  // DeletePayor is a hard delete: the client's own retry of a deletion that was done finds no payor.
  script = [
    answer(504, { message: 'Endpoint request timed out' }),
    answer(404, { message: 'payor not found', responseCode: 404 }),
  ];
  const outcome = await client.deletePayor(MID, PAYOR).then(
    () => 'deleted',
    (e: unknown) => e,
  );
  expect(seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE']);
  // The payor is gone, as asked: not "payor not found".
  expect(outcome).toBe('deleted');
});

test('a DELETE answered 404 at its first attempt is a 404 failure (nothing was there to delete)', async () => {
  script = [answer(404, { message: 'payor not found', responseCode: 404 })];
  const error = await failure(client.deletePayor(MID, PAYOR));
  expect(error).toMatchObject({ status: 404, attempts: 1, message: 'payor not found' });
});

test('defect: deleteMethod cannot send `replaceWith` (openapi DeleteMethod query; docs/integrating.md), so a used method cannot be moved and deleted with the client', async () => {
  script = [answer(204)];
  await client.deleteMethod(MID, PAYOR, METHOD, { replaceWith: REPLACEMENT });
  expect(seen).toHaveLength(1);
  expect(new URL(seen[0]!.url, baseUrl).searchParams.get('replaceWith')).toBe(REPLACEMENT);
});

test('defect: a DELETE throttled (429: refused before any function ran, nothing done) then answered 404 resolves as deleted: a payment id that names nothing is reported deleted', async () => {
  // The service never answers 429 itself: API Gateway's throttle does, before the request reaches
  // a function. So the 404 of the retry is the first answer about the id: nothing was there.
  script = [
    answer(429, { message: 'Too Many Requests' }),
    answer(404, { message: 'payment not found', responseCode: 404 }),
  ];
  const outcome = await client.deletePayment(MID, GROUP, PAYMENT).then(
    () => 'deleted',
    (e: unknown) => e,
  );
  expect(seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE']);
  expect(outcome).toMatchObject({ status: 404, message: 'payment not found' });
});
