/**
 * Idempotent group create over HTTP (issue 13 item 11), and a batch-path create (150 payments,
 * written ahead and committed) that replays with the same ids and is listed once.
 */
import { randomUUID } from 'node:crypto';
import { call, MID } from '#support/api';
import { aProfile, groupBody } from '#support/fixtures/e2e-resources';

const base = `/rest/merchants/${MID}`;
let profileId: string;
beforeAll(async () => {
  profileId = await aProfile();
});

test('the same idempotencyKey and body replays the first 201; another body is 409', async () => {
  const key = `e2e-${randomUUID()}`;
  const payments = Array.from({ length: 150 }, (_, i) => ({ profileId, amount: i + 1 }));
  const body = groupBody({ idempotencyKey: key, payments });

  const first = await call('POST', `${base}/groups`, body);
  expect(first.status).toBe(201);
  expect(first.body.payments).toHaveLength(150);

  const again = await call('POST', `${base}/groups`, body);
  expect(again.status).toBe(201);
  expect(again.body.paymentGroupId).toBe(first.body.paymentGroupId);
  const ids = (r: typeof first) =>
    (r.body.payments as { paymentId: string }[]).map((p) => p.paymentId).sort();
  expect(ids(again)).toEqual(ids(first));

  const other = await call('POST', `${base}/groups`, { ...body, locationId: body.locationId + 1 });
  expect(other.status).toBe(409);
  expect(other.body).toMatchObject({ responseCode: 409 });

  const listed = await call('GET', `${base}/groups?date=${body.scheduleDate}`);
  expect(listed.status).toBe(200);
  const mine = (listed.body as { paymentGroupId: string }[]).filter(
    (g) => g.paymentGroupId === first.body.paymentGroupId,
  );
  expect(mine).toHaveLength(1);
  const group = await call('GET', `${base}/groups/${first.body.paymentGroupId}`);
  expect(group.body).toMatchObject({ status: 'pending', paymentCount: 150 });
});
