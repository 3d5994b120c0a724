/**
 * Text a request brings is well-formed Unicode sent as UTF-8, through the local runtime's gateway
 * as a client sends it: a lone surrogate (JSON's `\ud800` escape, which no UTF-8 file can hold:
 * strict JSON parsers then refuse the list that carries it, and DynamoDB may refuse the write) or
 * bytes that are not UTF-8 (the gateway decodes them to U+FFFD, as API Gateway passes a text body
 * on) in any field, value or key, is a 400 naming the field, and nothing is written.
 */
import { baseUrl, call, MID, tokenFor } from '#support/api';
import { aProfile, groupBody } from '#support/fixtures/e2e-resources';
import { cardInput } from '#support/fixtures/inputs';

const PAYORS = `/v1/rest/merchants/${MID}/payors`;
const RUN = `${Date.now()}-${process.pid}`;

/** The payors with this customerAccountId: none after a refused create. */
const payorsWith = async (customerAccountId: string) => {
  const found = await call('GET', `${PAYORS}?customerAccountId=${encodeURIComponent(customerAccountId)}`);
  expect(found.status).toBe(200);
  return found.body as unknown[];
};

/** POST raw bytes, as a client that does not send UTF-8 would. */
async function postBytes(path: string, bytes: Buffer) {
  const res = await fetch(`${baseUrl()}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor()}`, 'content-type': 'application/json' },
    body: bytes,
  });
  return { status: res.status, body: (await res.json()) as { message: string; responseCode: number } };
}

test('defect: a lone surrogate in free text is accepted (strict JSON parsers then cannot read the list)', async () => {
  const profileId = await aProfile();
  const refused = await call('POST', `/rest/merchants/${MID}/groups`, {
    ...groupBody(),
    // JSON.stringify writes the lone half as its escape, `\ud83d`, as a client's JSON carries it.
    payments: [{ profileId, amount: 10, orderId: `INV-${RUN}-\ud83d` }],
  });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({
    responseCode: 400,
    message: expect.stringMatching(/^payments\[0\]\.orderId is not well-formed text \(a lone surrogate\)/),
  });

  // In a key too, and nothing is written: the payor is not there.
  const account = `WF-${RUN}-1`;
  const key = await call('POST', PAYORS, {
    paymentMethod: cardInput(),
    customerAccountId: account,
    customerData: { ['note\udc00']: 'x' },
  });
  expect(key.status).toBe(400);
  expect(key.body.message).toMatch(/^customerData has a key that is not well-formed text/);
  expect(await payorsWith(account)).toEqual([]);
});

test('defect: invalid UTF-8 bytes in a body are accepted', async () => {
  const account = `WF-${RUN}-2`;
  // `Café` as Latin-1 writes it: the é is the single byte 0xE9, no UTF-8.
  const json = JSON.stringify({
    paymentMethod: cardInput(),
    customerAccountId: account,
    customerData: { city: 'Caf#' },
  });
  const [before, after] = json.split('#') as [string, string];
  const answer = await postBytes(
    PAYORS,
    Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from(after)]),
  );
  expect(answer).toEqual({
    status: 400,
    body: {
      responseCode: 400,
      message: expect.stringMatching(
        /^customerData\.city is not well-formed text \(U\+FFFD: bytes not UTF-8\)/,
      ),
      errors: [{ field: 'customerData.city', message: expect.any(String) }],
    },
  });
  expect(await payorsWith(account)).toEqual([]);
});
