/** Auth over HTTP: the local authorizer, the token endpoint and client→merchant grants. */
import { call, futureDate, MID, MID8, OTHER, OTHER_MID, signToken, tokenFor, baseUrl } from '#support/api';
import { apiScope } from '#contract/stage';

const listPath = `/rest/merchants/${MID}/groups`;

test('the token endpoint issues a 6-hour bearer token for client credentials', async () => {
  const res = await fetch(`${baseUrl()}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=local-tester&client_secret=local-tester-secret',
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 21600 });
  const [, payload] = String(body.access_token).split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  expect(claims.scope).toBe(apiScope('dev'));
  expect(claims.client_id).toBe('local-tester');
  expect(claims.exp - claims.iat).toBe(21600);
});

test.each([
  ['a wrong secret', 'grant_type=client_credentials', 'local-tester:nope', 401],
  ['an unknown client', 'grant_type=client_credentials', 'someone:secret', 401],
  ['another grant type', 'grant_type=password', 'local-tester:local-tester-secret', 400],
  [
    'a foreign scope',
    'grant_type=client_credentials&scope=other/api.execute',
    'local-tester:local-tester-secret',
    400,
  ],
])('the token endpoint refuses %s', async (_what, form, basic, status) => {
  const res = await fetch(`${baseUrl()}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(basic).toString('base64')}`,
    },
    body: form,
  });
  expect(res.status).toBe(status);
});

test.each([
  ['no Authorization header', null],
  ['a malformed header', 'not-a-jwt'],
  ['a token signed by another key', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
])('%s gives 401 with the error body', async (_what, token) => {
  const res = await call('GET', listPath, undefined, { token: token as string | null });
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ message: 'Unauthorized', responseCode: 401 });
});

test('an expired token gives 401', async () => {
  const token = await signToken({ client_id: 'local-tester', scope: apiScope('dev') }, -60);
  expect((await call('GET', listPath, undefined, { token })).status).toBe(401);
});

test('a valid token without this stage’s scope gives 403', async () => {
  const token = await signToken({ client_id: 'local-tester', scope: apiScope('prod') });
  const res = await call('GET', listPath, undefined, { token });
  expect(res.status).toBe(403);
  expect(res.body.responseCode).toBe(403);
});

test('a client not authorized for the MID, or an unknown MID, gets 403 in either MID form', async () => {
  for (const mid of [OTHER_MID, '23500002', '99999999999', '12345678']) {
    const res = await call('GET', `/rest/merchants/${mid}/groups`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: expect.stringContaining(mid), responseCode: 403 });
  }
  const other = await tokenFor(OTHER);
  expect((await call('GET', `/rest/merchants/${OTHER_MID}/groups`, undefined, { token: other })).status).toBe(
    200,
  );
  expect((await call('GET', listPath, undefined, { token: other })).status).toBe(403);
});

test('a client cannot reach another merchant’s group through its own MID', async () => {
  const other = await tokenFor(OTHER);
  const created = await call(
    'POST',
    `/rest/merchants/${OTHER_MID}/groups`,
    { servicePayId: OTHER_MID, scheduleDate: futureDate(), scheduleHour: 3, locationId: 1 },
    { token: other },
  );
  expect(created.status).toBe(201);
  const id = created.body.paymentGroupId;
  expect((await call('GET', `/rest/merchants/${MID}/groups/${id}`)).status).toBe(404);
  expect((await call('GET', `/rest/merchants/${MID8}/groups/${id}`)).status).toBe(404);
  expect((await call('DELETE', `/rest/merchants/${MID}/groups/${id}`)).status).toBe(404);
  expect(
    (await call('GET', `/rest/merchants/${OTHER_MID}/groups/${id}`, undefined, { token: other })).body.status,
  ).toBe('pending');
});
