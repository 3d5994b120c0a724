/**
 * Issue 9, local runtime: the gateway, token endpoint, authorizer and test hooks must be as robust
 * as the cloud path they stand in for. One test per defect, named after it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { baseUrl, call, MID, OTHER, OTHER_MID, tokenFor } from '#support/api';
import { apiScope } from '#contract/stage';
import { sleep } from '#shared/clock';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

const tokenRequest = (authorization: string, form = 'grant_type=client_credentials') =>
  fetch(`${baseUrl()}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
    body: form,
  });

test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
  'the gateway does not crash on the Object.prototype query name %s',
  async (name) => {
    for (const path of [`/rest/merchants/${MID}/groups`, `/rest/merchants/${MID}/groups/${randomUUID()}`]) {
      const res = await call('GET', `${path}?${name}=1`);
      // No route declares these names: a 400 naming the parameter (with errors[]), never a crash.
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: expect.stringContaining(name),
        responseCode: 400,
        errors: [{ field: name, message: expect.stringContaining(name) }],
      });
    }
  },
);

test('a bad percent-escape in HTTP Basic credentials at /oauth2/token gives 401 invalid_client', async () => {
  for (const credentials of ['local-tester%:x', 'local-tester:%E0%A4%A', 'no-colon-at-all']) {
    const res = await tokenRequest(basic(credentials));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_client' });
  }
});

test.each([
  ['null', 'null'],
  ['an array', '[]'],
  ['a string', '"x"'],
  ['sesFailures 1e308', '{"sesFailures":1e308}'],
  ['a negative sesFailures', '{"sesFailures":-1}'],
])('POST /__local/faults with %s gives 400 with the error body', async (_what, raw) => {
  const res = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw,
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ message: expect.any(String), responseCode: 400 });
});

test('an oversized header gets 431 with the error body', async () => {
  const res = await fetch(`${baseUrl()}/rest/merchants/${MID}/groups`, {
    headers: { 'x-padding': 'a'.repeat(32 * 1024) },
  });
  expect(res.status).toBe(431);
  expect(await res.json()).toEqual({ message: expect.any(String), responseCode: 431 });
});

test('a signed token without exp is refused by the local authorizer', async () => {
  const jwk = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'local-signing-key.json'), 'utf8'));
  const token = await new SignJWT({ token_use: 'access', client_id: 'local-tester', scope: apiScope('dev') })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
    .setIssuer(`${baseUrl()}/local-user-pool`)
    .setIssuedAt()
    .sign(await importJWK(jwk, 'RS256'));
  const res = await call('GET', `/rest/merchants/${MID}/groups`, undefined, { token });
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ message: 'Unauthorized', responseCode: 401 });
});

test('the token endpoint answers Cache-Control: no-store, issued or refused', async () => {
  const issued = await tokenRequest(basic('local-tester:local-tester-secret'));
  expect(issued.status).toBe(200);
  expect(issued.headers.get('cache-control')).toBe('no-store');
  const refused = await tokenRequest(basic('local-tester:wrong'));
  expect(refused.status).toBe(401);
  expect(refused.headers.get('cache-control')).toBe('no-store');
});

test('the token endpoint limits failed attempts per client id with 429', async () => {
  // An unknown client id: locking out a real one would break the other test files of this run.
  const clientId = `brute-${randomUUID()}`;
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await tokenRequest(basic(`${clientId}:guess-${i}`))).status);
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  expect(statuses.slice(5)).toEqual([429, 429, 429]);
  const limited = await tokenRequest(basic(`${clientId}:guess`));
  expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await limited.json()).toEqual({ error: 'too_many_requests' });
  // Other clients are not affected.
  expect((await tokenRequest(basic('local-tester:local-tester-secret'))).status).toBe(200);
});

test('concurrent local handlers keep their log keys apart', async () => {
  const mine = await tokenFor();
  const other = await tokenFor(OTHER);
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? call('GET', `/rest/merchants/${MID}/groups?pageSize=1`, undefined, { token: mine })
        : call('GET', `/rest/merchants/${OTHER_MID}/groups?pageSize=1`, undefined, { token: other }),
    ),
  );
  await sleep(500); // the runtime's output reaches runtime.log
  const lines = readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.log'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"clientId"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  // The log is the whole tier's: other files act for other merchants with these clients too, so
  // only lines of this test's two merchants count, and each must carry its own client and MID.
  const ours = lines.filter((l) => l.merchantId !== undefined && (l.mid === MID || l.mid === OTHER_MID));
  const mixed = ours.filter((l) =>
    l.mid === OTHER_MID
      ? l.clientId !== 'local-other' || l.merchantId !== OTHER_MID
      : l.clientId !== 'local-tester' || l.merchantId !== MID,
  );
  expect(ours.length).toBeGreaterThanOrEqual(40);
  expect(mixed).toEqual([]);
});
