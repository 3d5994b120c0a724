/** Groups and payments over HTTP: every endpoint, rule and error status of the foundation. */
import { call, futureDate, MID, MID8 } from '#support/api';
import { expectRefusal } from '#support/refusal';
import { aProfile, groupBody } from '#support/fixtures/e2e-resources';

const base = `/rest/merchants/${MID}`;
let profileId: string;
beforeAll(async () => {
  profileId = await aProfile();
});

async function createGroup(body: Record<string, unknown> = {}) {
  const res = await call('POST', `${base}/groups`, groupBody(body));
  expect(res.status).toBe(201);
  return res.body;
}

describe('create and get a group', () => {
  test('creates a group with payments: ids, totals, defaults, UTC timestamps', async () => {
    const res = await call(
      'POST',
      `${base}/groups`,
      groupBody({
        payments: [
          {
            profileId,
            amount: 19.99,
            orderId: 'INV-1',
            fees: [{ name: 'service', amount: 0.5 }],
            customAttributes: { grade: '3' },
          },
          { profileId, amount: 0.01, recurring: true, sendEmailReceipt: true },
        ],
      }),
    );
    expect(res.status).toBe(201);
    const group = res.body;
    expect(group).toMatchObject({
      servicePayId: MID,
      scheduleHour: 14,
      locationId: 42,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
      status: 'pending',
      deleted: false,
      paymentCount: 2,
      totalAmount: 20,
    });
    expect(group.paymentGroupId).toMatch(/^[0-9a-f-]{36}$/);
    expect(group.dateCreated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(group.payments).toHaveLength(2);
    expect(group.payments[0]).toMatchObject({
      paymentGroupId: group.paymentGroupId,
      profileId,
      amount: 19.99,
      orderId: 'INV-1',
      recurring: false,
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: false,
      deleted: false,
      authResponse: null,
      fees: [{ name: 'service', amount: 0.5 }],
      customAttributes: { grade: '3' },
    });
    const got = await call('GET', `${base}/groups/${group.paymentGroupId}`);
    expect(got.status).toBe(200);
    const { payments: _p, ...withoutPayments } = group;
    expect(got.body).toEqual(withoutPayments);
  });

  test('the 8-digit MID form works and records hold the 11-digit MID', async () => {
    const res = await call('POST', `/rest/merchants/${MID8}/groups`, groupBody({ servicePayId: MID8 }));
    expect(res.status).toBe(201);
    expect(res.body.servicePayId).toBe(MID);
    expect((await call('GET', `/rest/merchants/${MID}/groups/${res.body.paymentGroupId}`)).status).toBe(200);
  });

  test('totals are exact to the cent over many payments', async () => {
    const payments = Array.from({ length: 30 }, () => ({ profileId, amount: 0.1 }));
    const group = await createGroup({ payments });
    expect(group.totalAmount).toBe(3);
  });

  test('an unknown group is 404 with the error body', async () => {
    const res = await call('GET', `${base}/groups/0190f0a0-0000-7000-8000-000000000000`);
    expect(res).toMatchObject({
      status: 404,
      body: { responseCode: 404, message: expect.stringContaining('not found') },
    });
  });
});

describe('update a group', () => {
  test('changes the schedule and other settings; omitted fields keep their values', async () => {
    const group = await createGroup();
    const date = futureDate(3);
    const res = await call('PUT', `${base}/groups/${group.paymentGroupId}`, {
      scheduleDate: date,
      scheduleHour: 2,
      allowPartial: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      scheduleDate: date,
      scheduleHour: 2,
      allowPartial: true,
      locationId: 42,
    });
    expect(res.body.lastUpdated >= group.lastUpdated).toBe(true);
    const list = await call('GET', `${base}/groups?date=${date}&time=2`);
    expect(list.body.map((g: { paymentGroupId: string }) => g.paymentGroupId)).toContain(
      group.paymentGroupId,
    );
  });

  test.each([
    [{ deleted: true }, 'deleted'],
    [{ deleted: false }, 'deleted'],
    [{ scheduleHour: 24 }, 'scheduleHour'],
    [{ scheduleDate: '2020-01-01' }, 'past'],
    [{ paymentGroupId: '0190f0a0-0000-7000-8000-000000000000' }, 'paymentGroupId'],
    [{ servicePayId: '32350000002' }, 'servicePayId'],
    [{ status: 'processed' }, 'status'],
  ])('refuses %j with 400 naming %s, changing nothing', async (body, word) => {
    const group = await createGroup();
    const res = await call('PUT', `${base}/groups/${group.paymentGroupId}`, body);
    expect(res.status).toBe(400);
    expectRefusal(res.body, word);
    expect((await call('GET', `${base}/groups/${group.paymentGroupId}`)).body).toEqual(
      expect.objectContaining({
        lastUpdated: group.lastUpdated,
        scheduleHour: group.scheduleHour,
        status: 'pending',
      }),
    );
  });
});

describe('delete a group', () => {
  test('soft-deletes: 204, still readable as deleted, out of the pending list, payments frozen', async () => {
    const group = await createGroup({ payments: [{ profileId, amount: 5 }] });
    const res = await call('DELETE', `${base}/groups/${group.paymentGroupId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const got = await call('GET', `${base}/groups/${group.paymentGroupId}`);
    expect(got.body).toMatchObject({ status: 'deleted', deleted: true, paymentCount: 1, totalAmount: 5 });
    const pending = await call('GET', `${base}?date=${group.scheduleDate}`);
    expect(pending.body.map((g: { paymentGroupId: string }) => g.paymentGroupId)).not.toContain(
      group.paymentGroupId,
    );
    const all = await call('GET', `${base}/groups?date=${group.scheduleDate}`);
    expect(all.body.map((g: { paymentGroupId: string }) => g.paymentGroupId)).toContain(group.paymentGroupId);
    expect((await call('DELETE', `${base}/groups/${group.paymentGroupId}`)).status).toBe(204);
    const add = await call('POST', `${base}/groups/${group.paymentGroupId}/payments`, {
      paymentGroupId: group.paymentGroupId,
      profileId,
      amount: 1,
    });
    expect(add).toMatchObject({ status: 400, body: { message: expect.stringContaining('deleted') } });
    const pid = group.payments[0].paymentId;
    expect((await call('DELETE', `${base}/groups/${group.paymentGroupId}/payments/${pid}`)).status).toBe(400);
    const update = await call('PUT', `${base}/groups/${group.paymentGroupId}`, { scheduleHour: 3 });
    expect(update.status).toBe(400);
  });
});

describe('payments', () => {
  test.each(['payments', 'transactions'])('add, update, list and delete through /%s', async (alias) => {
    const group = await createGroup();
    const gid = group.paymentGroupId;
    const added = await call('POST', `${base}/groups/${gid}/${alias}`, {
      paymentGroupId: gid,
      profileId,
      amount: 12.34,
      sendPaymentScheduledNotification: true,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      amount: 12.34,
      deleted: false,
      authResponse: null,
      sendPaymentScheduledNotification: true,
    });
    const pid = added.body.paymentId;
    expect((await call('GET', `${base}/groups/${gid}`)).body).toMatchObject({
      paymentCount: 1,
      totalAmount: 12.34,
    });

    const updated = await call('PUT', `${base}/groups/${gid}/${alias}/${pid}`, {
      paymentId: pid,
      paymentGroupId: gid,
      profileId,
      amount: 20,
      sendEmailReceipt: true,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      amount: 20,
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: true,
    });
    expect(updated.body).not.toHaveProperty('orderId');
    expect((await call('GET', `${base}/groups/${gid}`)).body).toMatchObject({
      paymentCount: 1,
      totalAmount: 20,
    });

    const immutable = await call('PUT', `${base}/groups/${gid}/${alias}/${pid}`, {
      paymentId: pid,
      paymentGroupId: gid,
      profileId,
      amount: 20,
      sendPaymentScheduledNotification: false,
    });
    expect(immutable).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('ImmutableFieldViolation') },
    });

    const second = await call('POST', `${base}/groups/${gid}/${alias}`, {
      paymentGroupId: gid,
      profileId,
      amount: 1.01,
    });
    const del = await call('DELETE', `${base}/groups/${gid}/${alias}/${pid}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call('DELETE', `${base}/groups/${gid}/${alias}/${pid}`)).status).toBe(204);
    expect((await call('GET', `${base}/groups/${gid}`)).body).toMatchObject({
      paymentCount: 1,
      totalAmount: 1.01,
    });

    const list = await call('GET', `${base}/groups/${gid}/${alias}`);
    expect(list.status).toBe(200);
    expect(list.body.map((p: { paymentId: string; deleted: boolean }) => [p.paymentId, p.deleted])).toEqual([
      [pid, true],
      [second.body.paymentId, false],
    ]);
    expect((await call('GET', `${base}/groups/${gid}/${alias}/${pid}`)).body).toMatchObject({
      deleted: true,
      amount: 20,
    });
    const changeDeleted = await call('PUT', `${base}/groups/${gid}/${alias}/${pid}`, {
      paymentId: pid,
      paymentGroupId: gid,
      profileId,
      amount: 3,
    });
    expect(changeDeleted.status).toBe(400);
  });

  test('ids in the body must match the path', async () => {
    const group = await createGroup({ payments: [{ profileId, amount: 1 }] });
    const gid = group.paymentGroupId;
    const pid = group.payments[0].paymentId;
    const other = '0190f0a0-0000-7000-8000-000000000000';
    expect(
      (await call('POST', `${base}/groups/${gid}/payments`, { paymentGroupId: other, profileId, amount: 1 }))
        .status,
    ).toBe(400);
    expect(
      (
        await call('PUT', `${base}/groups/${gid}/payments/${pid}`, {
          paymentId: other,
          paymentGroupId: gid,
          profileId,
          amount: 1,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('PUT', `${base}/groups/${gid}/payments/${pid}`, {
          paymentId: pid,
          paymentGroupId: other,
          profileId,
          amount: 1,
        })
      ).status,
    ).toBe(400);
  });

  test('unknown payment or group is 404', async () => {
    const group = await createGroup();
    const gid = group.paymentGroupId;
    const ghost = '0190f0a0-0000-7000-8000-000000000001';
    expect((await call('DELETE', `${base}/groups/${gid}/payments/${ghost}`)).status).toBe(404);
    expect(
      (
        await call('PUT', `${base}/groups/${gid}/payments/${ghost}`, {
          paymentId: ghost,
          paymentGroupId: gid,
          profileId,
          amount: 1,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call('POST', `${base}/groups/${ghost}/payments`, {
          paymentGroupId: ghost,
          profileId,
          amount: 1,
        })
      ).status,
    ).toBe(404);
    expect((await call('GET', `${base}/groups/${ghost}/payments`)).status).toBe(404);
  });

  test('20 parallel adds over HTTP keep the totals exact', async () => {
    const group = await createGroup();
    const gid = group.paymentGroupId;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('POST', `${base}/groups/${gid}/payments`, {
          paymentGroupId: gid,
          profileId,
          // (100 + i) / 100, not 1 + i / 100: 1 + 14 / 100 is 1.1400000000000001, refused as written.
          amount: (100 + i) / 100,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect((await call('GET', `${base}/groups/${gid}`)).body).toMatchObject({
      paymentCount: 20,
      totalAmount: 21.9,
    });
  });
});

describe('lists', () => {
  const date = futureDate(9);
  const ids: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 7; i++)
      ids.push(
        (await createGroup({ scheduleDate: date, scheduleHour: i % 2, locationId: 900 + (i % 3) }))
          .paymentGroupId,
      );
    await call('DELETE', `${base}/groups/${ids[0]}`);
  });
  const idsOf = (groups: { paymentGroupId: string }[]) => groups.map((g) => g.paymentGroupId).sort();

  test('all groups: an array, every stage, filters by date, time and locationID', async () => {
    const all = await call('GET', `${base}/groups?date=${date}`);
    expect(all.status).toBe(200);
    expect(idsOf(all.body)).toEqual([...ids].sort());
    expect(all.body.find((g: { paymentGroupId: string }) => g.paymentGroupId === ids[0]).status).toBe(
      'deleted',
    );
    expect(idsOf((await call('GET', `${base}/groups?date=${date}&time=1`)).body)).toEqual(
      [ids[1], ids[3], ids[5]].sort(),
    );
    expect(idsOf((await call('GET', `${base}/groups?date=${date}&locationID=902`)).body)).toEqual(
      [ids[2], ids[5]].sort(),
    );
    expect(idsOf((await call('GET', `${base}/groups?locationID=901&time=0`)).body)).toEqual(
      expect.arrayContaining([ids[4]!]),
    );
  });

  test('pending groups: deleted ones are left out', async () => {
    const pending = await call('GET', `${base}?date=${date}`);
    expect(idsOf(pending.body)).toEqual(ids.slice(1).sort());
    expect(pending.body.every((g: { status: string }) => g.status === 'pending')).toBe(true);
  });

  test('the paged envelope: meta, slices, defaults, past the end', async () => {
    const page = await call('GET', `${base}/groups?date=${date}&pageNumber=2&pageSize=3`);
    expect(page.body.meta).toEqual({ page: 2, pageSize: 3, totalItems: 7, totalPages: 3 });
    expect(page.body.items).toHaveLength(3);
    const last = await call('GET', `${base}/groups?date=${date}&pageNumber=3&pageSize=3`);
    expect(last.body.items).toHaveLength(1);
    const onlySize = await call('GET', `${base}/groups?date=${date}&pageSize=2`);
    expect(onlySize.body.meta).toEqual({ page: 1, pageSize: 2, totalItems: 7, totalPages: 4 });
    const onlyNumber = await call('GET', `${base}?date=${date}&pageNumber=1`);
    expect(onlyNumber.body.meta).toEqual({ page: 1, pageSize: 25, totalItems: 6, totalPages: 1 });
    const past = await call('GET', `${base}/groups?date=${date}&pageNumber=9&pageSize=3`);
    expect(past.body).toEqual({ meta: { page: 9, pageSize: 3, totalItems: 7, totalPages: 3 }, items: [] });
  });
});

describe('bad input is a 400 naming the field, and writes nothing', () => {
  const gid = '0190f0a0-0000-7000-8000-000000000000';
  test.each([
    ['malformed MID', 'GET', '/rest/merchants/1234/groups', undefined, 'MID'],
    ['malformed 12-digit MID', 'GET', '/rest/merchants/323500000011/groups', undefined, 'MID'],
    ['malformed GroupID', 'GET', `${base}/groups/not-a-uuid`, undefined, 'GroupID'],
    ['malformed PaymentID', 'DELETE', `${base}/groups/${gid}/payments/123`, undefined, 'PaymentID'],
    ['bad date filter', 'GET', `${base}/groups?date=2026-02-30`, undefined, 'date'],
    ['bad time filter', 'GET', `${base}/groups?time=24`, undefined, 'time'],
    ['negative time', 'GET', `${base}?time=-1`, undefined, 'time'],
    ['non-numeric locationID', 'GET', `${base}/groups?locationID=abc`, undefined, 'locationID'],
    ['pageNumber 0', 'GET', `${base}/groups?pageNumber=0`, undefined, 'pageNumber'],
    ['pageSize too big', 'GET', `${base}/groups?pageSize=501`, undefined, 'pageSize'],
    ['unknown query parameter', 'GET', `${base}/groups?locationId=1`, undefined, 'locationId'],
    ['repeated query parameter', 'GET', `${base}/groups?time=1&time=2`, undefined, 'time'],
  ])('%s', async (_what, method, path, body, field) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(400);
    expectRefusal(res.body, field);
  });

  test.each([
    ['missing servicePayId', { servicePayId: undefined }, 'servicePayId'],
    ['missing scheduleDate', { scheduleDate: undefined }, 'scheduleDate'],
    ['impossible date', { scheduleDate: '2027-02-29' }, 'scheduleDate'],
    ['month 13', { scheduleDate: '2027-13-01' }, 'scheduleDate'],
    ['date with time', { scheduleDate: '2027-01-01T00:00:00Z' }, 'scheduleDate'],
    ['past slot', { scheduleDate: '2024-01-01' }, 'past'],
    ['hour 24', { scheduleHour: 24 }, 'scheduleHour'],
    ['hour as string', { scheduleHour: '5' }, 'scheduleHour'],
    ['fractional hour', { scheduleHour: 5.5 }, 'scheduleHour'],
    ['negative locationId', { locationId: -1 }, 'locationId'],
    ['unknown initiator', { transactionInitiator: 'Robot' }, 'transactionInitiator'],
    ['servicePayId of another merchant', { servicePayId: '32350000002' }, 'servicePayId'],
    ['unknown field', { colour: 'red' }, 'colour'],
    [
      'three decimals',
      {
        payments: [
          { profileId: 'a/b', amount: 1 },
          { profileId: 'a/b', amount: 1.005 },
        ],
      },
      'payments[1].amount',
    ],
    ['zero amount', { payments: [{ profileId: 'a/b', amount: 0 }] }, 'payments[0].amount'],
    ['amount too large', { payments: [{ profileId: 'a/b', amount: 1000000 }] }, 'payments[0].amount'],
    ['amount as string', { payments: [{ profileId: 'a/b', amount: '5.00' }] }, 'payments[0].amount'],
    ['missing profileId', { payments: [{ amount: 5 }] }, 'payments[0].profileId'],
    ['malformed profileId', { payments: [{ profileId: 'nope', amount: 5 }] }, 'payments[0].profileId'],
    [
      'fee with 3 decimals',
      { payments: [{ profileId: 'a/b', amount: 5, fees: [{ name: 'x', amount: 0.001 }] }] },
      'payments[0].fees[0].amount',
    ],
    ['payments not an array', { payments: {} }, 'payments'],
  ])('group create: %s', async (_what, overrides, field) => {
    const date = futureDate(20);
    const before = (await call('GET', `${base}/groups?date=${date}`)).body.length;
    const res = await call('POST', `${base}/groups`, { ...groupBody({ scheduleDate: date }), ...overrides });
    expect(res.status).toBe(400);
    expectRefusal(res.body, field);
    expect((await call('GET', `${base}/groups?date=${date}`)).body.length).toBe(before);
  });

  test.each([
    ['not JSON', '{"servicePayId": '],
    ['JSON null', 'null'],
    ['a JSON array', '[]'],
    ['empty', ''],
  ])('body that is %s', async (_what, raw) => {
    const res = await call('POST', `${base}/groups`, undefined, { raw });
    expect(res.status).toBe(400);
    expect(res.body.responseCode).toBe(400);
    expect(res.body.message).toMatch(/body/);
  });

  test('an oversized body', async () => {
    // About 8 MB: over Lambda's 6 MB payload, under API Gateway's 10 MB.
    const payments = Array.from({ length: 10_000 }, () => ({
      profileId: 'a/b',
      amount: 1,
      customAttributes: { note: 'y'.repeat(800) },
    }));
    const body = JSON.stringify(groupBody({ payments }));
    expect(body.length).toBeGreaterThan(7_000_000);
    const res = await call('POST', `${base}/groups`, undefined, { raw: body });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/too large/);
  });

  test('a body over API Gateway’s 10 MB limit', async () => {
    const res = await call('POST', `${base}/groups`, undefined, {
      raw: JSON.stringify({ pad: 'z'.repeat(11_000_000) }),
    });
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringContaining('too large') } });
  });

  test('more than 10,000 payments', async () => {
    const payments = Array.from({ length: 10_001 }, () => ({ profileId: 'a/b', amount: 1 }));
    const res = await call('POST', `${base}/groups`, groupBody({ payments }));
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringContaining('payments') } });
  });

  test('no input produces a 500: a sweep of odd bodies', async () => {
    const group = await createGroup({ payments: [{ profileId, amount: 1 }] });
    const gid = group.paymentGroupId;
    const pid = group.payments[0].paymentId;
    const odd: unknown[] = [
      0,
      'x',
      true,
      [],
      {},
      { amount: null },
      { amount: 1e308 },
      { amount: -0 },
      { amount: NaN },
      { profileId: {} },
      { __proto__: { x: 1 } },
      { customAttributes: { a: { b: 1 } } },
      { fees: [null] },
    ];
    for (const body of odd) {
      for (const [method, path] of [
        ['POST', `${base}/groups`],
        ['PUT', `${base}/groups/${gid}`],
        ['POST', `${base}/groups/${gid}/payments`],
        ['PUT', `${base}/groups/${gid}/payments/${pid}`],
      ] as const) {
        const res = await call(method, path, body);
        expect([200, 400]).toContain(res.status);
        expect(res.body.responseCode ?? 200).toBe(res.status);
      }
    }
  });
});
