/**
 * Series over HTTP (docs/decisions.md "Series"): an occurrence inside noticeDays gets its group at
 * once (payments recurring, payment-scheduled notices sent); the daily creation job run twice, and
 * eight times at once, creates each group once; pause, resume and cancel; a series' group
 * processed through the usual path.
 *
 * The daily job is driven by `POST /__local/events/daily` with the time its EventBridge rule would
 * give, placed just before an occurrence's creation time (the job creates what falls due within
 * the next 24 hours).
 */
import { DateTime } from 'luxon';
import { baseUrl, call, MID } from '#support/api';
import { cardInput } from '#support/fixtures/index';
import { aProfile, createPayor } from '#support/fixtures/e2e-resources';
import { closeLocalTable, uniqueAddress, waitForEmails } from '#support/notifications';
import { getGroup, payments, scan, trigger, waitForStatus, type Json } from '#support/processing';

const seriesPath = `/rest/merchants/${MID}/series`;
const ZONE = 'America/New_York';

afterAll(() => closeLocalTable());

/** The local date `days` from today in the series' zone. */
const localDate = (days: number) => DateTime.now().setZone(ZONE).plus({ days }).toISODate()!;

async function createSeries(body: Record<string, unknown>): Promise<Json> {
  const res = await call<Json>('POST', seriesPath, {
    timeZone: ZONE,
    localHour: 12,
    frequency: 'weekly',
    interval: 1,
    locationId: 7,
    ...body,
  });
  if (res.status !== 201) throw new Error(`series create failed: ${res.status} ${res.text}`);
  return res.body;
}

const getSeries = async (seriesId: string): Promise<Json> =>
  (await call<Json>('GET', `${seriesPath}/${seriesId}`)).body;

/** Runs the daily job as its rule would at `time`; returns its report. */
async function daily(time: Date): Promise<Json> {
  const res = await fetch(`${baseUrl()}/__local/events/daily`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ time: time.toISOString() }),
  });
  if (res.status !== 200) throw new Error(`daily job failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** The daily run just before the series' next occurrence is due to be created. */
const runBefore = (series: Json) =>
  new Date(Date.parse((series.nextOccurrences as Json[])[0]!.createAt as string) - 3_600_000);

/** Occurrences of this series a job report says it created. */
const createdFor = (report: Json, seriesId: string) =>
  (report.created as Json[]).filter((c) => c.seriesId === seriesId);

/** The stored groups of a series (the table itself: deleted groups included). */
const groupsOf = (seriesId: string) =>
  scan('entity = :g AND seriesId = :s', { ':g': 'group', ':s': seriesId });

test('an occurrence inside noticeDays has its group at once, with its notices, and is processed as any group', async () => {
  const address = uniqueAddress('series-notice');
  const payor = await createPayor({ email: address, paymentMethod: cardInput() });
  const profileId = `${payor.payorId}/${payor.defaultPaymentMethodId}`;
  const body = {
    startDate: localDate(2),
    count: 4,
    noticeDays: 3,
    idempotencyKey: `series-e2e-${Date.now()}`,
    payments: [{ profileId, amount: 45.5, orderId: 'TUITION-1', sendPaymentScheduledNotification: true }],
  };
  const series = await createSeries(body);
  expect(series).toMatchObject({ status: 'active', createdCount: 1, occurrenceCount: 4 });
  const [first] = series.occurrences as Json[];
  expect(first).toMatchObject({ occurrence: 1, status: 'created', localDate: localDate(2) });
  expect((series.nextOccurrences as Json[]).map((o) => o.occurrence)).toEqual([2, 3, 4]);

  const group = await getGroup(first!.paymentGroupId as string);
  expect(group).toMatchObject({
    status: 'pending',
    seriesId: series.seriesId,
    occurrence: 1,
    scheduleDate: first!.scheduleDate,
    scheduleHour: first!.scheduleHour,
    locationId: 7,
    paymentCount: 1,
  });
  const [payment] = await payments(group.paymentGroupId as string);
  expect(payment).toMatchObject({ amount: 45.5, orderId: 'TUITION-1', recurring: true });
  // The payment-scheduled notice went out when the group was made: noticeDays ahead of the slot.
  const emails = (await waitForEmails([address], 1, 20_000)).get(address)!;
  expect(emails).toHaveLength(1);
  expect(emails[0]!.subject).toContain('45.50');

  // The same request again (idempotencyKey) answers the same series; nothing more is created.
  const again = await createSeries(body);
  expect(again).toMatchObject({ seriesId: series.seriesId, createdCount: 1 });
  expect(await groupsOf(series.seriesId as string)).toHaveLength(1);

  // Processed through the usual path.
  expect((await trigger(group.paymentGroupId as string)).status).toBe(200);
  const processed = await waitForStatus(group.paymentGroupId as string, 'processed', 20_000);
  expect(processed.processingSummary).toMatchObject({ approvedCount: 1 });
  expect((await payments(group.paymentGroupId as string))[0]).toMatchObject({
    recurring: true,
    authResponse: { status: 'Approved', responseCode: '00' },
  });
}, 30_000);

test('the creation job run twice, and eight times at once, creates each group once', async () => {
  const profileId = await aProfile();
  const series = await createSeries({
    startDate: localDate(20),
    count: 2,
    noticeDays: 3,
    payments: [
      { profileId, amount: 10 },
      { profileId, amount: 20.25 },
    ],
  });
  expect(series.createdCount).toBe(0);
  const at = runBefore(series);
  const reports = [
    ...(await Promise.all(Array.from({ length: 8 }, () => daily(at)))),
    await daily(at),
    await daily(new Date(at.getTime() + 600_000)),
  ];
  expect(reports.flatMap((r) => createdFor(r, series.seriesId as string))).toHaveLength(1);
  const after = await getSeries(series.seriesId as string);
  expect(after).toMatchObject({ createdCount: 1, status: 'active' });
  expect((after.nextOccurrences as Json[]).map((o) => o.occurrence)).toEqual([2]);
  const stored = await groupsOf(series.seriesId as string);
  expect(stored.map((g) => [g.occurrence, g.status, g.paymentCount])).toEqual([[1, 'pending', 2]]);
  expect(stored[0]!.paymentGroupId).toBe((after.occurrences as Json[])[0]!.paymentGroupId);
  expect(await payments(stored[0]!.paymentGroupId as string)).toHaveLength(2);
}, 30_000);

test('pause stops creation, resume goes on, cancel deletes the pending group and creates no more', async () => {
  const profileId = await aProfile();
  const series = await createSeries({
    startDate: localDate(21),
    count: 3,
    noticeDays: 2,
    payments: [{ profileId, amount: 3.33 }],
  });
  const id = series.seriesId as string;
  const at = runBefore(series);

  const paused = await call<Json>('PUT', `${seriesPath}/${id}`, { status: 'paused' });
  expect(paused.status).toBe(200);
  expect(paused.body.status).toBe('paused');
  expect(createdFor(await daily(at), id)).toEqual([]);
  expect((await getSeries(id)).createdCount).toBe(0);

  const resumed = await call<Json>('PUT', `${seriesPath}/${id}`, { status: 'active' });
  expect(resumed.body.status).toBe('active');
  expect(createdFor(await daily(at), id)).toHaveLength(1);
  const groupId = ((await getSeries(id)).occurrences as Json[])[0]!.paymentGroupId as string;
  expect((await getGroup(groupId)).status).toBe('pending');

  expect((await call('DELETE', `${seriesPath}/${id}`)).status).toBe(204);
  const canceled = await getSeries(id);
  expect(canceled).toMatchObject({ status: 'canceled', nextOccurrences: [] });
  expect((await groupsOf(id)).map((g) => g.status)).toEqual(['deleted']);
  // The next occurrences' turn comes: nothing is created.
  const later = new Date(at.getTime() + 14 * 86_400_000);
  expect(createdFor(await daily(later), id)).toEqual([]);
  expect(await groupsOf(id)).toHaveLength(1);
  // A canceled series cannot change; deleting it again is a no-op.
  expect((await call('PUT', `${seriesPath}/${id}`, { status: 'active' })).status).toBe(400);
  expect((await call('DELETE', `${seriesPath}/${id}`)).status).toBe(204);
}, 30_000);

test('an unknown time zone, and count with endDate, are 400 naming the fields; nothing is written', async () => {
  const profileId = await aProfile();
  const res = await call<Json>('POST', seriesPath, {
    timeZone: 'Mars/Olympus_Mons',
    localHour: 24,
    startDate: localDate(5),
    frequency: 'monthly',
    interval: 1,
    locationId: 1,
    payments: [{ profileId, amount: 1 }],
  });
  expect(res.status).toBe(400);
  const fields = (res.body.errors as Json[]).map((e) => e.field);
  expect(fields).toEqual(expect.arrayContaining(['timeZone', 'localHour']));
  const both = await call<Json>('POST', seriesPath, {
    timeZone: ZONE,
    localHour: 9,
    startDate: localDate(5),
    frequency: 'monthly',
    interval: 1,
    count: 3,
    endDate: localDate(90),
    locationId: 1,
    payments: [{ profileId, amount: 1 }],
  });
  expect(both.status).toBe(400);
  expect(both.body.message).toContain('count');
});

/** A payor with two cards: the default (the series' payments use it) and another. */
async function payorWithTwoCards() {
  const payor = await createPayor();
  const added = await call<{ savedPaymentMethodId: string }>(
    'POST',
    `/v1/rest/merchants/${MID}/payors/${payor.payorId}/savedPaymentMethods`,
    cardInput({ cardNumber: '5555555555554444', accountType: 'MASTERCARD' }),
  );
  expect(added.status).toBe(201);
  return {
    payorId: payor.payorId,
    used: payor.defaultPaymentMethodId,
    other: added.body.savedPaymentMethodId,
  };
}

test('defect: a series keeps charging a card that was deleted (its next occurrences left the payor out, and the 409 never named the series)', async () => {
  const { payorId, used, other } = await payorWithTwoCards();
  const bystander = await aProfile();
  const series = await createSeries({
    startDate: localDate(20),
    count: 2,
    noticeDays: 3,
    payments: [
      { profileId: bystander, amount: 12 },
      { profileId: `${payorId}/${used}`, amount: 30.5, orderId: 'FEES-7' },
    ],
  });
  const id = series.seriesId as string;
  const method = `/v1/rest/merchants/${MID}/payors/${payorId}/savedPaymentMethods/${used}`;

  // The series uses the method: 409 naming the series; nothing changes.
  const refused = await call<Json>('DELETE', method);
  expect(refused.status).toBe(409);
  expect(refused.body).toEqual({
    message: expect.stringMatching(/1 series.*replaceWith/) as string,
    responseCode: 409,
    payments: [],
    series: [{ seriesId: id }],
  });
  expect((await call('GET', method)).status).toBe(200);
  // Nor may its payor go.
  const payor = await call<Json>('DELETE', `/v1/rest/merchants/${MID}/payors/${payorId}`);
  expect(payor.status).toBe(409);
  expect(payor.body.series).toEqual([{ seriesId: id }]);

  // The series shows its payments, each with its status.
  const shown = await getSeries(id);
  expect(shown.payments).toEqual([
    {
      index: 0,
      profileId: bystander,
      amount: 12,
      status: 'active',
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: false,
      sendDeclineNotification: false,
    },
    {
      index: 1,
      profileId: `${payorId}/${used}`,
      amount: 30.5,
      orderId: 'FEES-7',
      status: 'active',
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: false,
      sendDeclineNotification: false,
    },
  ]);

  // replaceWith moves the series' payment too; the method is deleted.
  expect((await call('DELETE', `${method}?replaceWith=${other}`)).status).toBe(204);
  expect((await call('GET', method)).status).toBe(404);
  const moved = await getSeries(id);
  expect((moved.payments as Json[]).map((p) => p.profileId)).toEqual([bystander, `${payorId}/${other}`]);

  // Its next occurrence charges the replacement: nobody is left out.
  expect(createdFor(await daily(runBefore(series)), id)).toHaveLength(1);
  const [first] = (await getSeries(id)).occurrences as Json[];
  expect(first).not.toHaveProperty('paymentsLeftOut');
  const charged = await payments(first!.paymentGroupId as string);
  expect(charged.map((p) => [p.profileId, p.amount])).toEqual([
    [bystander, 12],
    [`${payorId}/${other}`, 30.5],
  ]);
}, 30_000);

test('a series keeps the time zone as sent, starts at most 5 years ahead, and shows its payments a page at a time', async () => {
  const profileId = await aProfile();
  const kolkata = DateTime.now().setZone('Asia/Kolkata');
  const body = {
    timeZone: 'Asia/Kolkata',
    localHour: 17,
    frequency: 'monthly',
    interval: 12,
    count: 120,
    locationId: 2,
    payments: Array.from({ length: 5 }, (_, i) => ({ profileId, amount: 1 + i })),
  };
  const tooFar = await call<Json>('POST', seriesPath, {
    ...body,
    startDate: kolkata.plus({ years: 5, days: 3 }).toISODate(),
  });
  expect(tooFar.status).toBe(400);
  expect((tooFar.body.errors as Json[]).map((e) => e.field)).toEqual(['startDate']);
  const year9999 = await call<Json>('POST', seriesPath, { ...body, startDate: '9999-12-30' });
  expect(year9999.status).toBe(400);

  const made = await call<Json>('POST', seriesPath, {
    ...body,
    startDate: kolkata.plus({ years: 5 }).toISODate(),
  });
  expect(made.status).toBe(201);
  expect(made.body.timeZone).toBe('Asia/Kolkata');
  expect((made.body.payments as Json[]).map((p) => p.amount)).toEqual([1, 2, 3, 4, 5]);
  expect(made.body).not.toHaveProperty('paymentsNext');
  const id = made.body.seriesId as string;
  const page = async (query: string) => (await call<Json>('GET', `${seriesPath}/${id}?${query}`)).body;
  const first = await page('paymentsPageSize=2');
  expect(first.timeZone).toBe('Asia/Kolkata');
  expect((first.payments as Json[]).map((p) => p.index)).toEqual([0, 1]);
  expect(first.paymentsNext).toBe(2);
  const last = await page('paymentsFrom=4&paymentsPageSize=2');
  expect((last.payments as Json[]).map((p) => [p.index, p.amount, p.status])).toEqual([[4, 5, 'active']]);
  expect(last).not.toHaveProperty('paymentsNext');
  expect((await page('paymentsFrom=5')).payments).toEqual([]);
  // Lists show the count only.
  const listed = (await call<Json[]>('GET', `${seriesPath}?status=active`)).body.find(
    (s) => s.seriesId === id,
  )!;
  expect(listed).toMatchObject({ paymentCount: 5, timeZone: 'Asia/Kolkata' });
  expect(listed).not.toHaveProperty('payments');
  const bad = await call<Json>('GET', `${seriesPath}/${id}?paymentsPageSize=0`);
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain('paymentsPageSize');
  expect((await call('DELETE', `${seriesPath}/${id}`)).status).toBe(204);
});
