/**
 * Idempotent group create (issue 13 item 11): the create body's optional idempotencyKey, with the
 * sale's rules, against in-memory group, payment and idempotency stores.
 */
import '#support/handlers/env';
import '#support/handlers/fake-stores';
import { idempotency } from '#support/handlers/fake-idempotency';
import { requestHash } from '#core/idempotency';
import { handler as createGroup } from '#lambdas/groups/create-group';
import { expectError, FUTURE_DATE, invoke, MID, resetDb } from '#support/handlers/invoke';
import { memory } from '#support/handlers/fakes';

beforeEach(() => {
  resetDb();
  memory.reset();
  idempotency.records.clear();
});

const body = (over: Record<string, unknown> = {}) => ({
  servicePayId: MID,
  scheduleDate: FUTURE_DATE,
  scheduleHour: 9,
  locationId: 12,
  idempotencyKey: 'create-1',
  payments: [
    { profileId: 'payor1/method1', amount: 10 },
    { profileId: 'payor2/method2', amount: 20.5 },
  ],
  ...over,
});
const post = (b: unknown) => invoke(createGroup, { method: 'POST', body: b });
const paymentIds = (response: { body: { payments: { paymentId: string }[] } }) =>
  response.body.payments.map((p) => p.paymentId);

describe('group create is idempotent on request', () => {
  it('the same key and body replays the first 201: same group and payment ids, nothing created twice', async () => {
    const first = await post(body());
    expect(first.status).toBe(201);
    const again = await post(body());
    expect(again.status).toBe(201);
    expect(again.body.paymentGroupId).toBe(first.body.paymentGroupId);
    expect(paymentIds(again)).toEqual(paymentIds(first));
    expect(again.body).toEqual(first.body);
    expect(memory.groups.size).toBe(1);
  });

  it('the same key with another body is 409, and creates nothing', async () => {
    await post(body());
    const other = await post(body({ locationId: 13 }));
    expect(expectError(other, 409)).toBe('idempotencyKey create-1 was already used with a different request');
    expect(memory.groups.size).toBe(1);
  });

  it('a request still in flight is 409', async () => {
    // Another request with this key and body holds a live claim.
    const ref = { merchantId: MID, scope: 'group', key: 'create-1' };
    await idempotency.claim(
      ref,
      { keyed: await requestHash(body()), unkeyed: () => '' },
      'other-group',
      new Date(),
    );
    const response = await post(body());
    expect(expectError(response, 409)).toMatch(/still in progress/);
    expect(memory.groups.size).toBe(0);
  });

  it('a refused create (400) frees its key: the corrected request with the same key succeeds', async () => {
    const refused = await post(body({ scheduleDate: '2000-01-01' }));
    expect(refused.status).toBe(400);
    expect(idempotency.records.size).toBe(0);
    expect((await post(body())).status).toBe(201);
  });

  it('different keys, or no key, create distinct groups', async () => {
    await post(body());
    await post(body({ idempotencyKey: 'create-2' }));
    const { idempotencyKey: _none, ...withoutKey } = body();
    await post(withoutKey);
    await post(withoutKey);
    expect(memory.groups.size).toBe(4);
  });

  it('a retry after the first attempt died past its commit answers that group (lease run out)', async () => {
    const first = await post(body());
    const record = idempotency.records.get(`${MID}|group|create-1`)!;
    delete record.response; // the first attempt died before recording its answer
    record.leaseUntil = 0;
    const again = await post(body());
    expect(again.status).toBe(201);
    expect(again.body.paymentGroupId).toBe(first.body.paymentGroupId);
    expect(paymentIds(again).sort()).toEqual(paymentIds(first).sort());
    expect(memory.groups.size).toBe(1);
  });

  it('a replay of a group grown since past what an answer carries (payments added) names the group instead of answering past the limit', async () => {
    const first = await post(body());
    const groupId = first.body.paymentGroupId as string;
    const stored = [...memory.paymentsOf(groupId).values()][0]!;
    // 48 attributes of 1e15 on 5,000 payments: about 8 MB answered.
    const customAttributes = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`a${i}`, 1e15]));
    for (let i = 0; i < 5_000; i++) {
      const paymentId = `${stored.paymentId.slice(0, -6)}${String(i).padStart(6, '0')}`;
      memory.paymentsOf(groupId).set(paymentId, { ...stored, paymentId, customAttributes });
    }
    expect(expectError(await post(body()), 400)).toMatch(
      `response limit: payment group ${groupId} was created: read it with GET .../groups/${groupId} and its payments page by page`,
    );
  });

  it('refuses a malformed key naming it', async () => {
    const response = await post(body({ idempotencyKey: 'bad key!' }));
    expect(expectError(response, 400)).toBe(
      'idempotencyKey must be 1-100 characters of letters, digits and _ . : -, and no card number',
    );
  });
});
