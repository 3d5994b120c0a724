/**
 * Issue 12, item 7: a route's path with another method answers 405 with `Allow`; a merchant path
 * under the wrong prefix (`/rest` vs `/v1/rest`) answers 404 naming the right one; both with the
 * service's error body, after the token (as API Gateway's fallback methods, lib/cdk/api-fallbacks.ts).
 */
import { baseUrl, call, MID, tokenFor } from '#support/api';
import { MERCHANT_PREFIXES, methodNotAllowedMessage } from '#contract/fallbacks';

const GROUP = `/rest/merchants/${MID}/groups/4b4f9b36-1d0b-4a55-9d3e-0c1a8f5e7a10`;
const [REST, V1] = MERCHANT_PREFIXES;

test.each([
  ['PATCH', GROUP, ['GET', 'PUT', 'DELETE']],
  ['POST', GROUP, ['GET', 'PUT', 'DELETE']],
  ['DELETE', `/rest/merchants/${MID}/groups`, ['GET', 'POST']],
  ['GET', `/v1/rest/merchants/${MID}/transactions`, ['POST']],
  ['PUT', `/v1/rest/merchants/${MID}/payors/p1/savedPaymentMethods/`, ['GET', 'POST']],
])('%s %s answers 405 with Allow: %p', async (method, path, allow) => {
  const res = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${await tokenFor()}` },
  });
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe(allow.join(', '));
  expect(await res.json()).toEqual({ message: methodNotAllowedMessage(allow), responseCode: 405 });
});

test.each([
  ['POST', `/rest/merchants/${MID}/payors`, REST.message],
  ['GET', `/rest/merchants/${MID}/transactions/t1`, REST.message],
  ['POST', `/v1/rest/merchants/${MID}/groups`, V1.message],
  ['GET', `/v1/rest/merchants/${MID}/groups/g1/payments`, V1.message],
])('%s %s answers 404 naming the right prefix', async (method, path, message) => {
  const res = await call(method, path, method === 'POST' ? {} : undefined);
  expect(res).toMatchObject({ status: 404, body: { message, responseCode: 404 } });
});

test('an unknown path stays the plain 404, a wrong method without a token 401', async () => {
  expect(await call('GET', `/rest/merchants/${MID}/nothing/here`)).toMatchObject({
    status: 404,
    body: { message: 'no such route', responseCode: 404 },
  });
  expect((await call('PATCH', GROUP, undefined, { token: null })).status).toBe(401);
  expect((await call('POST', `/rest/merchants/${MID}/payors`, {}, { token: null })).status).toBe(401);
});

test('GET / points to the docs page (a redirect, and a body saying where)', async () => {
  const res = await fetch(`${baseUrl()}/`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/docs');
  expect(await res.json()).toMatchObject({ docs: `${baseUrl()}/docs` });
});
