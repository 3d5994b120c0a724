/**
 * Issue 22, item 4, over HTTP: every free-text field refuses a full card number (a run of 13-19
 * digits passing the Luhn check, as written with spaces or hyphens too) with a 400 naming the
 * field, and nothing is written; a digit run that fails the Luhn check and a phone number pass.
 */
import { randomUUID } from 'node:crypto';
import { call, futureDate, MID } from '#support/api';
import { expectRefusal } from '#support/refusal';
import { aProfile, createPayor, groupBody } from '#support/fixtures/e2e-resources';
import { cardInput } from '#support/fixtures/inputs';

const PAN = '4012888888881881';
const PAN_AS_WRITTEN = '4012 8888 8888 1881';
/** 16 digits, one changed: not Luhn-valid. */
const NOT_LUHN = '4012888888881882';
const PHONE = '+1 (555) 123-4567';

const v1 = `/v1/rest/merchants/${MID}`;
const base = `/rest/merchants/${MID}`;
/** A schedule date no other test uses: the refused creates are looked for there. */
const DATE = futureDate(400 + Math.floor(Math.random() * 200));
let profileId: string;
let groupId: string;
beforeAll(async () => {
  profileId = await aProfile();
  const created = await call('POST', `${base}/groups`, groupBody({ payments: [{ profileId, amount: 1 }] }));
  expect(created.status).toBe(201);
  groupId = created.body.paymentGroupId;
}, 20_000);

const refused = (res: { status: number; body: unknown; text: string }, field: string): void => {
  expect([res.status, res.text]).toEqual([400, expect.stringContaining(`"message":"${field} must`)]);
  expectRefusal(res.body, field);
  expect((res.body as { message: string }).message).toContain('card number');
};

describe('payors', () => {
  test.each([
    ['customerAccountId', { customerAccountId: PAN }],
    ['customerAccountId', { customerAccountId: `acct ${PAN_AS_WRITTEN}` }],
    ['customerAccountType', { customerAccountType: PAN }],
    ['customerData.note', { customerData: { note: `card ${PAN}` } }],
    ['paymentMethod.customerData.label', { paymentMethod: cardInput({ customerData: { label: PAN } }) }],
  ])('create refuses a card number in %s, and stores nothing', async (field, body) => {
    const res = await call('POST', `${v1}/payors`, { paymentMethod: cardInput(), ...body });
    refused(res, field);
    // Nothing written: no payor holds the number as its customerAccountId.
    const found = await call('GET', `${v1}/payors?customerAccountId=${encodeURIComponent(PAN)}`);
    expect([found.status, found.body]).toEqual([200, []]);
  });

  test('update refuses a card number in customerAccountId and customerData; the payor is unchanged', async () => {
    const payor = await createPayor({ customerAccountId: `c-${randomUUID().slice(0, 8)}` });
    const path = `${v1}/payors/${payor.payorId}`;
    refused(await call('PUT', path, { customerAccountId: PAN }), 'customerAccountId');
    refused(await call('PUT', path, { customerData: { x: PAN_AS_WRITTEN } }), 'customerData.x');
    const after = await call('GET', path);
    expect(after.body).toEqual(payor);
  });

  test('a digit run that fails the Luhn check and a phone number are accepted and echoed', async () => {
    // A suffix of letters: a random hex suffix's digits joined the run after the dash, and some
    // 13-19 digits of it passed the Luhn check now and then (CI run 13): the check was right.
    const suffix = Array.from(randomUUID().replace(/[^a-f]/g, '') + 'abcd')
      .slice(0, 4)
      .join('');
    const id = `${NOT_LUHN}-${suffix}`;
    const payor = await createPayor({ customerAccountId: id, customerData: { phone: PHONE, ref: NOT_LUHN } });
    expect(payor).toMatchObject({ customerAccountId: id, customerData: { phone: PHONE, ref: NOT_LUHN } });
  });
});

describe('groups and payments', () => {
  test.each([
    ['payments[0].orderId', { orderId: PAN }],
    ['payments[0].customAttributes.memo', { customAttributes: { memo: `pan ${PAN_AS_WRITTEN}` } }],
    ['payments[0].fees[0].name', { fees: [{ name: `fee ${PAN}`, amount: 1 }] }],
  ])('create group refuses a card number in %s, and creates nothing', async (field, payment) => {
    const body = groupBody({ scheduleDate: DATE, payments: [{ profileId, amount: 1, ...payment }] });
    refused(await call('POST', `${base}/groups`, body), field);
    const listed = await call('GET', `${base}/groups?date=${DATE}`);
    expect([listed.status, listed.body]).toEqual([200, []]);
  });

  test('add payment refuses one in orderId; the group keeps its one payment', async () => {
    const res = await call('POST', `${base}/groups/${groupId}/payments`, {
      paymentGroupId: groupId,
      profileId,
      amount: 1,
      orderId: PAN,
    });
    refused(res, 'orderId');
    const group = await call('GET', `${base}/groups/${groupId}`);
    expect(group.body.paymentCount).toBe(1);
  });

  test('an order id that fails the Luhn check and a phone number in customAttributes are accepted', async () => {
    const res = await call('POST', `${base}/groups/${groupId}/payments`, {
      paymentGroupId: groupId,
      profileId,
      amount: 2,
      orderId: NOT_LUHN,
      customAttributes: { phone: PHONE },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ orderId: NOT_LUHN, customAttributes: { phone: PHONE } });
  });
});

describe('webhook endpoints', () => {
  test('create refuses a card number in description, and creates nothing', async () => {
    const res = await call('POST', `${v1}/webhook-endpoints`, {
      url: 'http://127.0.0.1:9/hooks',
      enabledEvents: ['*'],
      description: `billing ${PAN}`,
    });
    refused(res, 'description');
    const listed = await call('GET', `${v1}/webhook-endpoints`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(PAN);
  });
});
