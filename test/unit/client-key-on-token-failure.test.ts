/**
 * docs/decisions.md "The client retries every keyed request until it knows": "Every error carries
 * `idempotencyKey` ... Why: an application that gives up and resubmits with a new key after the
 * duplicate window charges twice; with the key on the error it resubmits the same request."
 *
 * A sale whose first attempt is answered 504 (API Gateway's integration timeout: the function may
 * have charged), whose retry is answered 401 (the token expired or was revoked meanwhile), and
 * whose token cannot be renewed (the token endpoint unavailable): the client gives up, and the
 * sale may exist. Its error must carry the key the sale was sent with.
 *
 * A real HTTP server on 127.0.0.1 answers as scripted; the clock is injected (no wait is waited).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ScheduledPaymentsClient, type Clock } from '../../client/index';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const MID = '32350000001';
let server: Server;
let baseUrl: string;
let api: Handler[];
let tokens: Handler[];
let keys: (string | undefined)[];

const answer =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
const token = answer(200, { access_token: 'token', token_type: 'Bearer', expires_in: 21_600 });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/oauth2/token') return (tokens.shift() ?? token)(req, res);
      keys.push(req.headers['idempotency-key'] as string | undefined);
      (api.shift() ?? answer(500, { message: 'unscripted', responseCode: 500 }))(req, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

test('defect: a sale answered 504 then 401, whose token cannot be renewed, gives up with an error that has no idempotencyKey', async () => {
  const clock: Clock = {
    now: () => 1_700_000_000_000,
    sleep: async () => undefined,
    setTimer: () => () => undefined,
    random: () => 0.5,
  };
  const client = new ScheduledPaymentsClient({
    baseUrl,
    tokenUrl: `${baseUrl}/oauth2/token`,
    clientId: 'id',
    clientSecret: 'secret',
    clock,
  });
  keys = [];
  // The first token, then the token endpoint unavailable for every renewal attempt.
  const unavailable = answer(503, { error: 'temporarily_unavailable' });
  tokens = [token, unavailable, unavailable, unavailable];
  api = [
    answer(504, { message: 'Endpoint request timed out' }),
    answer(401, { message: 'The incoming token has expired' }),
  ];
  const error = await client.createSale(MID, { profileId: 'p/m', amount: 12.5 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  // Both attempts carried one key; the sale may have been made by the first.
  expect(keys).toHaveLength(2);
  expect(keys[0]).toBeDefined();
  expect(keys[1]).toBe(keys[0]);
  expect((error as ApiError).idempotencyKey).toBe(keys[0]);
});
