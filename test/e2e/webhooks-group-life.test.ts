/**
 * Issue 18, "What it must show": the events of a group's whole life, made through the API and real
 * processing (the local state machine and the sandbox processor), delivered to two real receivers
 * on loopback that verify every request with the `standardwebhooks` package: one answering 2xx,
 * one failing the first two attempts of every event with 500. Each event reaches each receiver
 * once with a 2xx (repeats only of the same `webhook-id`), in `sequence` order per object, and
 * shows its object as GET showed it right after the change. The runtime is this file's own: the
 * retry schedule shortened (WEBHOOK_RETRY_SCALE) and the webhook sweep every second.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '#shared/clock';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { call, futureDate, MID } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import { groupPath, merchantPath, trigger, waitForStatus, type Json } from '#support/processing';
import { delivered, startReceiver, until, type Receiver, type Received } from '#support/webhook-receiver';

const V1 = `/v1/rest/merchants/${MID}`;
/** The runtime's settlement period (its cut-offs fall on multiples of it since the epoch). */
const SETTLEMENT_MS = 300_000;

let runtime: LocalRuntimeProcess | undefined;
const shared: Record<string, string | undefined> = {};
const SHARED_VARIABLES = ['E2E_BASE_URL', 'E2E_DATA_DIR', 'E2E_SES_URL'];
let healthy: Receiver;
let flaky: Receiver;

/** When the file began, and what it had done by when (printed when it ran slow: see timeline). */
const began = Date.now();
const marks: [string, number][] = [];
const mark = (what: string) => marks.push([what, Date.now() - began]);

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-webhooks-life',
    env: {
      // 5 min → 0.6 s, 30 min → 3.6 s: the flaky receiver's third attempt comes within seconds
      // (a turn the breaker skips waits no longer than the delivery's current step, and uses no
      // attempt). The schedule's span, after which a delivery still pending ends failed, scales
      // too: 27 h 35 min → 198 s, past this test's 150 s bound. At 0.0005 it was 50 s, which a
      // loaded CI machine outlasted while the flaky endpoint's breaker kept reopening (it fails
      // every event's first two attempts), and group.processed ended failed after 2 attempts
      // (fresh-clone run 15).
      WEBHOOK_RETRY_SCALE: '0.002',
      LOCAL_WEBHOOK_SWEEP_SECONDS: '1',
      LOCAL_DUE_SWEEP_SECONDS: '0',
      SANDBOX_SETTLEMENT_SECONDS: String(SETTLEMENT_MS / 1000),
    },
  });
  for (const name of SHARED_VARIABLES) shared[name] = process.env[name];
  Object.assign(process.env, {
    E2E_BASE_URL: runtime.url,
    E2E_DATA_DIR: runtime.dataDir,
    E2E_SES_URL: runtime.sesUrl,
  });
  mark('runtime ready');
  healthy = await startReceiver(() => 200);
  // Every event: 500, 500, then 204.
  flaky = await startReceiver((_r, attempt) => (attempt <= 2 ? 500 : 204));
}, 120_000);

afterAll(async () => {
  await healthy?.close();
  await flaky?.close();
  for (const name of SHARED_VARIABLES) process.env[name] = shared[name];
  await runtime?.stop();
});

/** What GET answered right after each announced change, by object, in the order of the changes. */
const expected = new Map<string, { type: string; view: Json }[]>();
const announce = (objectId: string, type: string, view: Json) =>
  expected.set(objectId, [...(expected.get(objectId) ?? []), { type, view }]);

const get = async (path: string): Promise<Json> => {
  const res = await call<Json>('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const paymentPath = (groupId: string, paymentId: string) => `${groupPath(groupId)}/payments/${paymentId}`;

async function endpointFor(r: Receiver, path: string): Promise<string> {
  const res = await call('POST', `${V1}/webhook-endpoints`, {
    url: r.url(path),
    enabledEvents: ['group.*', 'payment.*'],
  });
  if (res.status !== 201) throw new Error(`endpoint create: ${res.status} ${res.text}`);
  r.secrets = [res.body.secret];
  return res.body.webhookEndpointId;
}

/** The events the API lists for one object, oldest first. */
async function eventsOf(objectId: string): Promise<Json[]> {
  const page = await get(`${V1}/events?objectId=${objectId}&pageSize=100`);
  return (page.items as Json[]).reverse();
}

/**
 * The file's steps, every request each receiver got and the runtime's warnings, in seconds from the
 * file's start, printed when the file took more than 40 s (it takes 12-25 s; the breaker's 30 s
 * holds, now fixed, made it take 45-110 s in some CI runs) or WEBHOOKS_LIFE_TIMELINE=1: a
 * diagnostic, not an assertion.
 */
function timeline(): void {
  if (Date.now() - began <= 40_000 && process.env.WEBHOOKS_LIFE_TIMELINE !== '1') return;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const lines = marks.map(([what, ms]) => `${s(ms)} s ${what}`);
  for (const [name, r] of [
    ['healthy', healthy],
    ['flaky', flaky],
  ] as const)
    for (const x of r.received)
      lines.push(
        `${s(x.at - began)} s ${name} ${x.event.type} #${x.event.sequence} ${x.status ?? 'no answer'}`,
      );
  // The runtime's warnings and errors (a turn that broke, a message not enqueued), at most 30.
  const warnings = readFileSync(join(runtime!.dataDir, 'runtime.log'), 'utf8')
    .split('\n')
    .filter((line) => /^\{"level":"(WARN|ERROR)"/.test(line))
    .slice(0, 30)
    .map((line) => {
      try {
        const { level, message, timestamp, error } = JSON.parse(line) as Record<string, unknown>;
        const at = s(Date.parse(String(timestamp)) - began);
        return `${at} s runtime ${String(level)} ${String(message)} ${JSON.stringify(error ?? '')}`;
      } catch {
        return line; // written half-way as the file read it
      }
    })
    .map((line) => line.slice(0, 400));
  console.log(`webhooks-group-life took ${s(Date.now() - began)} s:\n${[...lines, ...warnings].join('\n')}`);
}

test("a group's whole life: every event delivered once, in order per object, showing the object as GET did", async () => {
  const healthyId = await endpointFor(healthy, '/healthy');
  const flakyId = await endpointFor(flaky, '/flaky');
  const [approves, declines1, declines2] = await Promise.all([
    aProfile('4111111111111111'),
    aProfile('4000000000000002'), // 05 do not honor, category 1
    aProfile('4000000000009995'), // 51 insufficient funds, category 2
  ]);

  // Created with two payments (announced by group.created alone), then updated.
  const created = await call<Json>('POST', `${merchantPath()}/groups`, {
    servicePayId: MID,
    scheduleDate: futureDate(2),
    scheduleHour: 14,
    locationId: 42,
    payments: [
      { profileId: approves, amount: 10.5 },
      { profileId: declines1, amount: 20.25 },
    ],
  });
  expect(created.status).toBe(201);
  const groupId = created.body.paymentGroupId as string;
  const inline = (created.body.payments as Json[]).map((p) => p.paymentId as string);
  announce(groupId, 'group.created', await get(groupPath(groupId)));
  const updated = await call<Json>('PUT', groupPath(groupId), { scheduleHour: 15, locationId: 43 });
  expect(updated.status).toBe(200);
  announce(groupId, 'group.updated', await get(groupPath(groupId)));

  // Two payments added: payment.created each.
  const added: string[] = [];
  for (const [profileId, amount] of [
    [declines2, 30.75],
    [approves, 40],
  ] as const) {
    const res = await call<Json>('POST', `${groupPath(groupId)}/payments`, {
      paymentGroupId: groupId,
      profileId,
      amount,
    });
    expect(res.status).toBe(201);
    added.push(res.body.paymentId);
    announce(res.body.paymentId, 'payment.created', await get(paymentPath(groupId, res.body.paymentId)));
  }

  // Processed for real: group.processing, each payment's answer, group.processed.
  const before = await get(groupPath(groupId));
  expect((await trigger(groupId)).status).toBe(200);
  mark('processing triggered');
  const processed = await waitForStatus(groupId, 'processed', 60_000);
  mark('group processed');
  announce(groupId, 'group.processing', { ...before, status: 'processing' });
  const answers: Record<string, string> = {};
  for (const paymentId of [...inline, ...added]) {
    const payment = await get(paymentPath(groupId, paymentId));
    const type = payment.authResponse.status === 'Approved' ? 'payment.approved' : 'payment.declined';
    answers[paymentId] = type;
    announce(paymentId, type, payment);
  }
  expect(Object.values(answers).sort()).toEqual([
    'payment.approved',
    'payment.approved',
    'payment.declined',
    'payment.declined',
  ]);
  announce(groupId, 'group.processed', processed);

  // Voided or refunded: each approved payment's reversal announced on its own (declined ones are
  // skipped and announce nothing), then group.void_or_refund_completed. Not within a few seconds
  // of a local settlement cut-off, where a reversal would only be scheduled (the void margin).
  const toCutOff = SETTLEMENT_MS - (Date.now() % SETTLEMENT_MS);
  if (toCutOff < 8_000) await sleep(toCutOff + 500);
  const reversal = await call<Json>('POST', `${groupPath(groupId)}/void-or-refund`, {
    paymentIds: [...inline, ...added],
  });
  expect(reversal.status).toBe(200);
  for (const { paymentId, outcome } of reversal.body.payments as Json[]) {
    if (answers[paymentId] === 'payment.declined') {
      expect({ paymentId, outcome }).toEqual({ paymentId, outcome: 'skipped' });
      continue;
    }
    expect(['voided', 'refunded']).toContain(outcome);
    announce(paymentId, `payment.${outcome}`, await get(paymentPath(groupId, paymentId)));
  }
  announce(groupId, 'group.void_or_refund_completed', await get(groupPath(groupId)));

  // A second group, deleted.
  const second = await call<Json>('POST', `${merchantPath()}/groups`, {
    servicePayId: MID,
    scheduleDate: futureDate(3),
    scheduleHour: 9,
    locationId: 42,
    payments: [{ profileId: approves, amount: 5 }],
  });
  expect(second.status).toBe(201);
  const secondId = second.body.paymentGroupId as string;
  announce(secondId, 'group.created', await get(groupPath(secondId)));
  expect((await call('DELETE', groupPath(secondId))).status).toBe(204);
  announce(secondId, 'group.deleted', await get(groupPath(secondId)));

  // The API's event list holds exactly these changes, sequence 1..n per object, data as GET showed.
  const events = new Map<string, Json>();
  for (const [objectId, changes] of expected) {
    const listed = await eventsOf(objectId);
    expect({ objectId, listed: listed.map((e) => [e.type, e.sequence]) }).toEqual({
      objectId,
      listed: changes.map((c, i) => [c.type, i + 1]),
    });
    for (const [i, e] of listed.entries()) {
      const want = changes[i]!.view;
      if (changes[i]!.type === 'group.processing') {
        // Written by the claim, before GET could see it: the group as it was, now processing, at
        // the claim's time.
        expect(e.data).toEqual({ ...want, lastUpdated: e.data.lastUpdated });
        expect(e.data.lastUpdated >= want.lastUpdated).toBe(true);
      } else expect({ type: e.type, data: e.data }).toEqual({ type: e.type, data: want });
      events.set(e.id, e);
    }
  }
  const total = events.size;
  expect(total).toBe(15);
  mark('events listed');

  await until(
    'every event delivered to both receivers',
    async () => {
      const ids = (r: Receiver) => new Set(delivered(r).map((x) => x.id)).size;
      return ids(healthy) >= total && ids(flaky) >= total;
    },
    // Bounded well past the shortened schedule: the flaky receiver's 15 events, each after two
    // failures and in order per object, on a CI machine running two other e2e files at once.
    150_000,
  ).catch(async (e: Error) => {
    // What each endpoint's deliveries say, so a time-out names its cause.
    for (const id of [healthyId, flakyId]) {
      const page = await get(`${V1}/webhook-endpoints/${id}/deliveries?pageSize=100`);
      const rows = (page.items as Json[]).map((d) =>
        [d.eventId, d.type, d.status, d.attempts, d.lastStatusCode, d.lastError, d.nextAttemptAt].join(' '),
      );
      e.message += `\n${id === flakyId ? 'flaky' : 'healthy'} endpoint deliveries:\n${rows.join('\n')}`;
    }
    const kept = join(tmpdir(), `webhooks-group-life-${Date.now()}.log`);
    copyFileSync(join(runtime!.dataDir, 'runtime.log'), kept);
    e.message += `\nthe runtime's log: ${kept}`;
    mark('gave up waiting');
    timeline();
    throw e;
  });
  mark('every event delivered');
  timeline();
  for (const [receiver, attempts] of [
    [healthy, [200]],
    [flaky, [500, 500, 204]],
  ] as const) {
    const got = receiver.received;
    expect(got.every((r) => r.verified)).toBe(true);
    // Exactly the listed events, each with its own id as webhook-id, answered as the receiver's
    // schedule says and then no more: after its 2xx an event comes again only if that answer never
    // reached the service (a request timed out on a loaded machine), and then with the same id.
    expect(new Set(got.map((r) => r.id))).toEqual(new Set(events.keys()));
    for (const id of events.keys()) {
      const statuses = got.filter((r) => r.id === id).map((r) => r.status);
      expect({ id, statuses: statuses.slice(0, attempts.length) }).toEqual({ id, statuses: attempts });
      expect({
        id,
        after: statuses.slice(attempts.length).filter((s) => s === undefined || s >= 300),
      }).toEqual({
        id,
        after: [],
      });
    }
    // The body is the event as GET .../events/{id} shows it.
    for (const r of delivered(receiver)) expect(JSON.parse(r.body)).toEqual(events.get(r.id));
    // In order per object: no attempt of an event before the 2xx of its object's previous event.
    for (const objectId of expected.keys()) inOrder(got.filter((r) => r.event.objectId === objectId));
  }

  // The deliveries lists agree: every event delivered, its 2xx the last answer, after at least
  // the attempts its receiver saw (one that never reached it, a timeout, counts too).
  for (const [endpointId, receiver] of [
    [healthyId, healthy],
    [flakyId, flaky],
  ] as const) {
    const listed = (await get(`${V1}/webhook-endpoints/${endpointId}/deliveries?pageSize=100`))
      .items as Json[];
    expect(listed.map((d) => d.eventId).sort()).toEqual([...events.keys()].sort());
    for (const d of listed) {
      const seen = receiver.received.filter((r) => r.id === d.eventId).length;
      expect(d).toMatchObject({ status: 'delivered', lastStatusCode: receiver === healthy ? 200 : 204 });
      expect({ eventId: d.eventId, enough: d.attempts >= seen }).toEqual({
        eventId: d.eventId,
        enough: true,
      });
    }
  }
}, 240_000);

/** An object's requests to one receiver: each sequence's first attempt after the previous one's 2xx. */
function inOrder(requests: Received[]): void {
  // Each event's first 2xx (a repeat after it, of the same id, changes nothing).
  const ok = requests.filter(
    (r, i) =>
      r.status !== undefined &&
      r.status < 300 &&
      requests.findIndex((x) => x.id === r.id && x.status !== undefined && x.status < 300) === i,
  );
  expect(ok.map((r) => r.event.sequence)).toEqual(ok.map((_r, i) => i + 1));
  for (const r of requests) {
    if (r.event.sequence === 1) continue;
    const previous = ok.find((x) => x.event.sequence === r.event.sequence - 1)!;
    expect({ id: r.id, afterPrevious: previous.n < r.n }).toEqual({ id: r.id, afterPrevious: true });
  }
}
