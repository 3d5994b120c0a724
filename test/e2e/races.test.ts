/**
 * Races over the API, as integrators meet them (issue 25, defect 2): concurrent PUTs of one group
 * or one saved method. The integration tier's race tests (test/integration/races-*.test.ts) cover
 * every other path, parallel voids included, with the interleavings forced and stale reads and
 * conflicts injected; these run the whole stack with real requests.
 */
import { call, MID } from '#support/api';
import { address } from '#support/fixtures/index';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';

test('a reschedule answered 200 is never silently undone by a concurrent update of another field (20 tries)', async () => {
  for (let i = 0; i < 20; i++) {
    const created = await call('POST', `/rest/merchants/${MID}/groups`, groupBody({ scheduleHour: 18 }));
    expect(created.status).toBe(201);
    const path = `/rest/merchants/${MID}/groups/${created.body.paymentGroupId}`;
    const [hour, location] = await Promise.all([
      call('PUT', path, { scheduleHour: 20 }),
      call('PUT', path, { locationId: 99 }),
    ]);
    expect([hour.status, location.status]).toEqual([200, 200]);
    expect(hour.body.scheduleHour).toBe(20);
    expect(location.body.locationId).toBe(99);
    const end = await call('GET', path);
    expect({ hour: end.body.scheduleHour, location: end.body.locationId }).toEqual({
      hour: 20,
      location: 99,
    });
  }
});

test('concurrent edits of a saved method are never lost: expiry and billing address both take effect (10 tries)', async () => {
  const year = new Date().getUTCFullYear();
  for (let i = 0; i < 10; i++) {
    const payor = await createPayor();
    const path = `/v1/rest/merchants/${MID}/payors/${payor.payorId}/savedPaymentMethods/${payor.defaultPaymentMethodId}`;
    const [expiry, billing] = await Promise.all([
      call('PUT', path, { expiryMonth: 2, expiryYear: year + 5 }),
      call('PUT', path, { billingAddress: { ...address, line1: '1 Concurrent Way' } }),
    ]);
    expect([expiry.status, billing.status]).toEqual([200, 200]);
    const end = await call('GET', path);
    expect(end.body).toMatchObject({
      expiryMonth: 2,
      expiryYear: year + 5,
      billingAddress: { line1: '1 Concurrent Way' },
    });
  }
});
