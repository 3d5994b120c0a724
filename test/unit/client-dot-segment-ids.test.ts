/**
 * The TypeScript client puts path ids into its URLs with encodeURIComponent (client/session.ts),
 * which leaves `.` and `..` as they are; the URL it then builds resolves them as dot segments. An
 * id of `..` (a caller passing on what its own user typed, `spay group process ..`) therefore
 * sends the request to the PARENT resource: a payment's delete deletes its group, a saved
 * method's delete deletes its payor, one group's trigger triggers every pending group of the
 * merchant. A malformed id must be refused (the API answers 400 to a malformed path id, and
 * nothing is written), never turned into another operation.
 *
 * A real local gateway (lib/local/http-server.ts, the route table of the API, which matches a
 * path with a trailing slash as API Gateway does) whose handlers record which route they serve.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { routeList as routes } from '#contract/routes/index';
import type { TokenIssuer } from '#lib/local/auth';
import type { ApiHandler, createHttpServer as CreateHttpServer } from '#lib/local/http-server';
import { passThroughInvokeStore } from '#support/invoke-store-passthrough';
import { ScheduledPaymentsClient } from '../../client/index';

jest.doMock('@aws/lambda-invoke-store', passThroughInvokeStore);
let createHttpServer: typeof CreateHttpServer;

const issuer: TokenIssuer = {
  token: () => Promise.reject(new Error('not used')),
  verify: () => Promise.resolve({ claims: { scope: 'all' } }),
};

const MID = '32350000001';
const GROUP = '0193c2a4-5b1e-7c3d-8e4f-000000000001';
const PAYOR = '0193c2a4-5b1e-7c3d-8e4f-000000000002';

let server: Server;
let client: ScheduledPaymentsClient;
/** `METHOD <route path>` of every route a handler served. */
let reached: string[] = [];

beforeAll(async () => {
  ({ createHttpServer } = await import('#lib/local/http-server'));
  const handler: ApiHandler = (event) => {
    reached.push(`${event.httpMethod} ${event.resource}`);
    return Promise.resolve<APIGatewayProxyResult>(
      event.httpMethod === 'DELETE'
        ? { statusCode: 204, body: '' }
        : {
            statusCode: 200,
            body: JSON.stringify({ triggeredGroups: [], totalTriggered: 0, totalFailed: 0 }),
          },
    );
  };
  const handlers = new Map(routes.map((r) => [r.handler, handler]));
  const localRoutes = new Map([
    [
      'POST /oauth2/token',
      () =>
        Promise.resolve({
          status: 200,
          body: { access_token: 'token', token_type: 'Bearer', expires_in: 21_600 },
        }),
    ],
  ]);
  server = createHttpServer({ routes, handlers, issuer, stage: 'dev', localRoutes });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new ScheduledPaymentsClient({
    baseUrl: base,
    tokenUrl: `${base}/oauth2/token`,
    clientId: 'id',
    clientSecret: 'secret',
  });
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));
beforeEach(() => {
  reached = [];
});

/** The routes reached apart from `allowed` (the operation the call names). */
async function elsewhere(call: () => Promise<unknown>, allowed: string): Promise<string[]> {
  await call().catch(() => undefined);
  return reached.filter((route) => route !== allowed);
}

test('defect: deletePayment with the payment id ".." deletes the whole group (DELETE .../groups/{GroupID}/)', async () => {
  expect(
    await elsewhere(
      () => client.deletePayment(MID, GROUP, '..'),
      'DELETE /rest/merchants/{MID}/groups/{GroupID}/payments/{PaymentID}',
    ),
  ).toEqual([]);
});

test('defect: deleteMethod with the method id ".." deletes the payor (DELETE .../payors/{PayorID}/)', async () => {
  expect(
    await elsewhere(
      () => client.deleteMethod(MID, PAYOR, '..'),
      'DELETE /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}',
    ),
  ).toEqual([]);
});

test('defect: processGroup with the group id ".." triggers every pending group of the merchant (POST .../process-payments)', async () => {
  expect(
    await elsewhere(
      () => client.processGroup(MID, '..'),
      'POST /rest/merchants/{MID}/groups/{GroupID}/process-payments',
    ),
  ).toEqual([]);
});
