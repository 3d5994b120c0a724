/**
 * Defect (CI, 2026-11-26): the local gateway gave every function 10 s, group create its 27 s in the
 * cloud. On a loaded machine a 50-payment create ran past 10 s, middy answered its early 503, and
 * the peak-slot e2e failed on a create the deployed function would have finished. Every route's
 * function now runs locally with the timeout it is deployed with (contract/limits.ts
 * apiTimeoutSecondsOf, which lib/cdk/api.ts reads too).
 *
 * A real HTTP server on loopback; each handler answers the time its Lambda context gives it. The
 * time stands still during the test (Date.now fixed), so a function's remaining time is exactly the
 * timeout it was given, however long the machine takes to serve the request. The
 * InvokeStore (per-invocation isolation, which needs ESM's dynamic import that Jest's CommonJS
 * runtime lacks) is replaced by a pass-through: the e2e tier runs the real one.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  API_FUNCTION_TIMEOUT_SECONDS,
  apiTimeoutSecondsOf,
  CREATE_GROUP_TIMEOUT_SECONDS,
  GROUP_REPORT_TIMEOUT_SECONDS,
} from '#contract/limits';
import { VOID_OR_REFUND } from '#contract/processing';
import { routeList as routes } from '#contract/routes/index';
import type { TokenIssuer } from '#lib/local/auth';
import type { ApiHandler, createHttpServer as CreateHttpServer } from '#lib/local/http-server';
import { passThroughInvokeStore } from '#support/invoke-store-passthrough';

jest.doMock('@aws/lambda-invoke-store', passThroughInvokeStore);
/** Loaded after the pass-through store (jest.doMock is not hoisted above imports here). */
let createHttpServer: typeof CreateHttpServer;

const issuer: TokenIssuer = {
  token: () => Promise.reject(new Error('not used')),
  verify: () => Promise.resolve({ claims: { scope: 'all' } }),
};

let server: Server;
let base: string;

beforeAll(async () => {
  ({ createHttpServer } = await import('#lib/local/http-server'));
  const remaining: ApiHandler = (_event, context: Context) =>
    Promise.resolve<APIGatewayProxyResult>({
      statusCode: 200,
      body: JSON.stringify({ remainingMs: context.getRemainingTimeInMillis() }),
    });
  const handlers = new Map(routes.map((r) => [r.handler, remaining]));
  server = createHttpServer({ routes, handlers, issuer, stage: 'dev' });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

// The gateway's deadline and the context's remaining time read Date.now: standing still, the
// remaining time a handler sees is its whole timeout, with no allowance for a slow machine.
beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-03-02T10:00:00Z')));
afterEach(() => jest.restoreAllMocks());

/** A concrete path of a route (every `{param}` filled). */
const pathOf = (path: string) => path.replace(/\{\w+\}/g, 'x1');

const remainingOf = async (handler: string): Promise<number> => {
  const route = routes.find((r) => r.handler === handler)!;
  const res = await fetch(`${base}${pathOf(route.path)}`, {
    method: route.method,
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    ...(['POST', 'PUT', 'PATCH'].includes(route.method) && { body: '{}' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { remainingMs: number }).remainingMs;
};

describe('the local gateway gives every function 10 s, group create its 27 s in the cloud', () => {
  it('runs group create with its deployed 27 s, not the 10 s default', async () => {
    expect(apiTimeoutSecondsOf('groups/create-group')).toBe(CREATE_GROUP_TIMEOUT_SECONDS);
    expect(await remainingOf('groups/create-group')).toBe(CREATE_GROUP_TIMEOUT_SECONDS * 1000);
  });

  it("runs every route's function with the timeout it is deployed with", async () => {
    const expected = new Map<string, number>([
      ['groups/create-group', CREATE_GROUP_TIMEOUT_SECONDS],
      ['series/create-series', CREATE_GROUP_TIMEOUT_SECONDS],
      ['series/update-series', CREATE_GROUP_TIMEOUT_SECONDS],
      ['groups/group-report', GROUP_REPORT_TIMEOUT_SECONDS],
      [VOID_OR_REFUND.apiHandler, VOID_OR_REFUND.apiTimeoutSeconds],
    ]);
    for (const handler of new Set(routes.map((r) => r.handler))) {
      const seconds = expected.get(handler) ?? API_FUNCTION_TIMEOUT_SECONDS;
      expect({ handler, seconds: apiTimeoutSecondsOf(handler) }).toEqual({ handler, seconds });
      expect({ handler, remainingMs: await remainingOf(handler) }).toEqual({
        handler,
        remainingMs: seconds * 1000,
      });
    }
  });
});
