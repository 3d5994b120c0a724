/**
 * The local gateway passes bodies as API Gateway REST does with a Lambda proxy integration and the
 * API's binaryMediaTypes (contract/media-types.ts, which lib/cdk/api.ts reads too):
 *
 * - an answer with `isBase64Encoded` goes out as its bytes when the request's first Accept media
 *   type is a binary one (the group report's .xlsx pages), as the base64 text otherwise;
 * - a request body whose Content-Type is a binary type reaches the function base64-encoded;
 *   any other is text: its bytes decoded as UTF-8, a byte sequence that is not UTF-8 becoming
 *   U+FFFD, which the functions refuse (lambdas/shared/well-formed.ts).
 *
 * A real HTTP server on loopback with handlers that echo what they get; the InvokeStore is a
 * pass-through, as in local-gateway-timeouts.test.ts.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { BINARY_MEDIA_TYPES, XLSX_MEDIA_TYPE } from '#contract/media-types';
import { routeList as routes } from '#contract/routes/index';
import type { TokenIssuer } from '#lib/local/auth';
import type { ApiHandler, createHttpServer as CreateHttpServer } from '#lib/local/http-server';
import { passThroughInvokeStore } from '#support/invoke-store-passthrough';

jest.doMock('@aws/lambda-invoke-store', passThroughInvokeStore);
let createHttpServer: typeof CreateHttpServer;

const issuer: TokenIssuer = {
  token: () => Promise.reject(new Error('not used')),
  verify: () => Promise.resolve({ claims: { scope: 'all' } }),
};

/** Bytes that are not text: a zip file's signature and bytes no UTF-8 holds. */
const FILE = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0x80, 0xc3]);

let server: Server;
let base: string;
let received: APIGatewayProxyEvent | undefined;

beforeAll(async () => {
  ({ createHttpServer } = await import('#lib/local/http-server'));
  // GET: answers FILE base64-encoded, as the report's function answers a workbook. Others: echo.
  const handler: ApiHandler = (event) => {
    received = event;
    return Promise.resolve<APIGatewayProxyResult>(
      event.httpMethod === 'GET'
        ? {
            statusCode: 200,
            headers: { 'content-type': XLSX_MEDIA_TYPE },
            body: FILE.toString('base64'),
            isBase64Encoded: true,
          }
        : { statusCode: 200, body: '{}' },
    );
  };
  const handlers = new Map(routes.map((r) => [r.handler, handler]));
  server = createHttpServer({ routes, handlers, issuer, stage: 'dev' });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const REPORT = '/rest/merchants/32350000001/groups/0193c2a4-5b1e-7c3d-8e4f-000000000001/report';
const PAYORS = '/v1/rest/merchants/32350000001/payors';

const get = async (accept: string) => {
  const res = await fetch(`${base}${REPORT}`, { headers: { authorization: 'Bearer t', accept } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

const post = async (body: Buffer, contentType: string) => {
  received = undefined;
  const res = await fetch(`${base}${PAYORS}`, {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': contentType },
    body,
  });
  expect(res.status).toBe(200);
};

it('lists the spreadsheet type among the binary media types', () => {
  expect(BINARY_MEDIA_TYPES).toContain(XLSX_MEDIA_TYPE);
});

it('sends a base64 answer as its bytes when the first Accept type is binary', async () => {
  for (const accept of [XLSX_MEDIA_TYPE, `${XLSX_MEDIA_TYPE};q=0.9, text/csv`]) {
    const answer = await get(accept);
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(FILE)).toBe(true);
  }
});

it('sends it as the base64 text otherwise, as API Gateway does', async () => {
  for (const accept of ['application/json', `text/csv, ${XLSX_MEDIA_TYPE}`, '*/*']) {
    const answer = await get(accept);
    expect(answer.bytes.toString('latin1')).toBe(FILE.toString('base64'));
  }
});

it('passes a body of a binary Content-Type base64-encoded, any other as text', async () => {
  await post(FILE, XLSX_MEDIA_TYPE);
  expect(received).toMatchObject({ isBase64Encoded: true, body: FILE.toString('base64') });
  await post(Buffer.from('{"orderId":"Café ☃"}'), 'application/json; charset=utf-8');
  expect(received).toMatchObject({ isBase64Encoded: false, body: '{"orderId":"Café ☃"}' });
});

it('decodes a text body as UTF-8, each byte sequence that is not UTF-8 as U+FFFD', async () => {
  const body = Buffer.concat([Buffer.from('{"orderId":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
  await post(body, 'application/json');
  expect(received).toMatchObject({ isBase64Encoded: false, body: '{"orderId":"Caf\uFFFD"}' });
});
