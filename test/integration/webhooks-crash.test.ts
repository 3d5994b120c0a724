/**
 * Crash safety of events and their delivery (issue 18), on DynamoDB Local with real receivers on
 * loopback that verify every request with the `standardwebhooks` package. A crash is injected into
 * the container's DynamoDB client (`injectCrash`): the process dies just before or just after one
 * chosen write, so nothing after it happens (the batch's messages are never sent; the message
 * being handled comes back after the queue's visibility timeout, or is lost outright). Then the
 * service carries on as it would after a restart: the queue hands the message out again and the
 * webhook recovery finds the deliveries whose message never came.
 *
 * What must hold: a change and its event are written together or not at all (a crash before the
 * transaction leaves neither, after it both, once); every event written reaches every endpoint
 * with a 2xx (repeats only of the same `webhook-id`), and the object's next event never overtakes it.
 */
import { createGroup, updateGroup } from '#core/groups';
import { Batch, LOST_AFTER_MS } from '#core/webhook-batch';
import { handleMessage } from '#core/webhook-delivery';
import { recoverDeliveries } from '#core/webhook-recovery';
import { createEndpoint } from '#core/webhooks';
import type { ServiceEvent } from '#domain/events';
import { ddb } from '#shared/ddb';
import { useWebhookQueue, type WebhookMessage } from '#shared/webhook-queue';
import { eventCursorStore } from '#store/event-cursors';
import { eventStore } from '#store/events';
import type { Merchant } from '#store/merchants';
import { webhookDeliveryStore } from '#store/webhook-deliveries';
import { webhookDeliveryList } from '#store/webhook-delivery-list';
import { useWebhookTestEnv, eventMessage } from '#support/webhook-env';
import { createTestTable, type TestTable } from '#support/ddb';
import { CrashError, injectCrash, removeCrashes } from '#support/ddb-faults';
import { groupInput } from '#support/fixtures/index';
import { storedProfile } from '#support/sales';
import { delivered, startReceiver, until, type Receiver } from '#support/webhook-receiver';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
/** The webhook queue's visibility timeout (lib/cdk/webhooks.ts): a broken message's way back. */
const VISIBILITY_MS = 60_000;
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);

let table: TestTable;
let first: Receiver;
let second: Receiver;
/**
 * The webhook queue: each message with the test-clock time it becomes visible, and how many times
 * it was handed out before (a crashed one comes back with one more).
 */
const queue: { message: WebhookMessage; at: number; received?: number }[] = [];
let clock = Date.now();
/** Each endpoint's url (one receiver each). */
const endpointUrls = new Map<string, string>();

beforeAll(async () => {
  table = await createTestTable();
  useWebhookTestEnv(table.tableName, 'webhooks-crash-it');
  useWebhookQueue({
    async send(messages) {
      for (const m of messages) queue.push({ message: m.message, at: clock + m.delaySeconds * 1000 });
      return [];
    },
  });
  first = await startReceiver(() => 200);
  second = await startReceiver(() => 204);
  for (const r of [first, second]) {
    const created = await createEndpoint(
      MID,
      { url: r.url('/hooks'), enabledEvents: ['group.*'] },
      new Date(clock - 60_000),
    );
    r.secrets = [created.secret];
    // The receivers check the signed timestamps against the test clock, not the real time.
    r.now = () => clock;
    endpointUrls.set(created.webhookEndpointId, r.url('/hooks'));
  }
});
afterEach(() => removeCrashes());
afterAll(async () => {
  useWebhookQueue(undefined);
  await first.close();
  await second.close();
  await table.drop();
});

/**
 * One message handled as the delivery function does; every delivery by a message of its own (the
 * crash points between them) unless `atFanOut` (the fan-out attempts an object's first event). A crash kills the container: the batch's messages are never sent,
 * and the message comes back after the visibility timeout, handed out once more (`lost`: never
 * again, as if it went to the dead-letter queue). `received`: its hand-outs before this one.
 */
async function handle(
  message: WebhookMessage,
  lost = false,
  atFanOut = false,
  received = 0,
): Promise<'done' | 'crashed'> {
  const batch = new Batch(() => new Date(clock), atFanOut);
  try {
    await handleMessage(message, batch, received + 1);
  } catch (error) {
    if (!(error instanceof CrashError)) throw error;
    if (!lost) queue.push({ message, at: clock + VISIBILITY_MS, received: received + 1 });
    return 'crashed';
  }
  for (const m of batch.messages) queue.push({ message: m.message, at: clock + m.delaySeconds * 1000 });
  return 'done';
}

/** Handles every message due by the test clock, moving the clock to the next due one. */
async function pump(limit = 200): Promise<void> {
  for (let rounds = 0; queue.length > 0 && rounds < limit; rounds++) {
    queue.sort((a, b) => a.at - b.at);
    clock = Math.max(clock, queue[0]!.at);
    const due = queue.filter((m) => m.at <= clock);
    queue.splice(0, due.length);
    for (const { message, received } of due) await handle(message, false, false, received);
  }
  expect(queue).toEqual([]);
}

/**
 * Runs the queue dry, then the recovery once every pending delivery's checkAt has passed (a lease
 * and LOST_AFTER_MS), and the queue again.
 */
async function settle(): Promise<void> {
  await pump();
  clock += LOST_AFTER_MS + 60_000;
  await recoverDeliveries(new Date(clock));
  await pump();
}

/** The stream forwarder's message for a new event item. */

async function eventsOf(objectId: string): Promise<ServiceEvent[]> {
  const { events } = await eventStore().page(MID, { objectId }, 100);
  return events.reverse();
}

async function aGroup(): Promise<string> {
  const profileId = await storedProfile(table, MID);
  const { group } = await createGroup(
    groupInput({ servicePayId: MID, scheduleDate: day(2), payments: [{ profileId, amount: 10 }] }) as never,
    MERCHANT,
    new Date(clock),
  );
  return group.paymentGroupId;
}

/** Each receiver got exactly `events` of the object, each verified and 2xx, in sequence order. */
function expectDelivered(objectId: string, events: ServiceEvent[]): void {
  for (const r of [first, second]) {
    expect(r.received.filter((x) => x.event.objectId === objectId).every((x) => x.verified)).toBe(true);
    const got = delivered(r).filter((x) => x.event.objectId === objectId);
    // Repeats only of the same webhook-id; first arrivals in sequence order.
    const firsts = got.filter((x, i) => got.findIndex((y) => y.id === x.id) === i);
    expect(firsts.map((x) => [x.id, x.event.sequence])).toEqual(events.map((e) => [e.id, e.sequence]));
    for (const x of got) expect(JSON.parse(x.body)).toMatchObject({ id: x.id, sequence: x.event.sequence });
  }
}

const isEventPut = (input: Record<string, unknown>) =>
  JSON.stringify(input.TransactItems ?? '').includes('"entity":"event"');

test('a crash just before the change is written leaves neither change nor event; just after, both, delivered once', async () => {
  const groupId = await aGroup();
  const [created] = await eventsOf(groupId);

  const before = injectCrash(ddb(), 'TransactWriteItemsCommand', 'before', isEventPut);
  await expect(updateGroup(groupId, MID, { scheduleHour: 20 }, new Date(clock))).rejects.toThrow(CrashError);
  expect(before.crashed).toBe(1);
  expect((await eventsOf(groupId)).map((e) => e.type)).toEqual(['group.created']);

  const after = injectCrash(ddb(), 'TransactWriteItemsCommand', 'after', isEventPut);
  await expect(updateGroup(groupId, MID, { scheduleHour: 21 }, new Date(clock))).rejects.toThrow(CrashError);
  expect(after.crashed).toBe(1);
  const events = await eventsOf(groupId);
  expect(events.map((e) => [e.type, e.sequence])).toEqual([
    ['group.created', 1],
    ['group.updated', 2],
  ]);
  expect(events[1]!.data).toMatchObject({ scheduleHour: 21 });

  // The stream brings each event (the forwarder's messages).
  for (const e of events) queue.push({ message: eventMessage(e), at: clock });
  await settle();
  expect(events[0]!.id).toBe(created!.id);
  expectDelivered(groupId, events);
  for (const r of [first, second])
    expect(delivered(r).filter((x) => x.event.objectId === groupId)).toHaveLength(2);
});

test("a crash after the receiver's 2xx, before its answer is recorded: the recovery sends it again with the same webhook-id, then the object's next event", async () => {
  const groupId = await aGroup();
  await updateGroup(groupId, MID, { scheduleHour: 20 }, new Date(clock));
  const events = await eventsOf(groupId);
  // The fan-out of both events, without a crash: four deliveries, each with its message.
  for (const e of events) await handle(eventMessage(e));
  const messages = queue.splice(0);
  expect(messages).toHaveLength(4);

  // The first receiver's delivery of group.created: the POST is answered 200, then the container
  // dies before settling it, and its message is lost with it.
  const url = first.url('/hooks');
  const crash = injectCrash(ddb(), 'UpdateItemCommand', 'before', (input) =>
    JSON.stringify(input).includes('"delivered"'),
  );
  const mine = messages.find(
    (m) => m.message.kind === 'delivery' && m.message.sequence === 1 && isEndpointOf(m.message, url),
  )!;
  expect(await handle(mine.message, true)).toBe('crashed');
  expect(crash.crashed).toBe(1);
  expect(delivered(first).filter((x) => x.id === events[0]!.id)).toHaveLength(1);
  const stuck = await webhookDeliveryStore().get(mine.message as never);
  expect(stuck).toMatchObject({ status: 'pending', attempts: 0 });

  // Everything else carries on; group.updated to the first receiver waits for group.created.
  for (const m of messages) if (m !== mine) queue.push(m);
  await pump();
  expect(delivered(first).filter((x) => x.id === events[1]!.id)).toHaveLength(0);
  expect(await recoverDeliveries(new Date(clock))).toEqual({ enqueued: 0 }); // its lease and checkAt still run
  await settle();

  expectDelivered(groupId, events);
  const got = delivered(first).filter((x) => x.event.objectId === groupId);
  expect(got.map((x) => x.id)).toEqual([events[0]!.id, events[0]!.id, events[1]!.id]);
  for (const e of events)
    for (const r of [first, second]) {
      const d = (await deliveriesOf(e.id)).find((x) => x.url === r.url('/hooks'));
      expect(d).toMatchObject({ status: 'delivered' });
    }
});

test("a crash after the fan-out's own attempt was answered 2xx, before its answer is recorded: the event's message comes again and the fan-out sends it again with the same webhook-id, to that endpoint only", async () => {
  const groupId = await aGroup();
  const [event] = await eventsOf(groupId);
  // The fan-out attempts group.created (the object's first event) to both endpoints itself, before
  // writing either record; the first answer recorded as delivered is the crash: the other
  // attempt's record goes on.
  let settles = 0;
  const crash = injectCrash(
    ddb(),
    'UpdateItemCommand',
    'before',
    (input) => JSON.stringify(input).includes('"delivered"') && ++settles === 1,
  );
  expect(await handle(eventMessage(event!), false, true)).toBe('crashed');
  expect(crash.crashed).toBe(1);
  // The other endpoint's attempt goes on after the crash (its request may still be on its way).
  for (const r of [first, second])
    await until('each receiver has the event once', () => delivered(r).some((x) => x.id === event!.id));
  for (const r of [first, second]) expect(delivered(r).filter((x) => x.id === event!.id)).toHaveLength(1);
  await until("the other endpoint's attempt recorded", async () =>
    (await deliveriesOf(event!.id)).some((d) => d.status === 'delivered'),
  );
  // The crashed attempt left no record: its event's message stands for it.
  expect(await deliveriesOf(event!.id)).toHaveLength(1);
  const [recorded] = await deliveriesOf(event!.id);
  expect(queue).toHaveLength(1); // the event message, back after the visibility timeout
  const [back] = queue.splice(0);
  expect(back!.received).toBe(1);

  // Handed out again, the fan-out writes each record before its attempt: the recorded one is not
  // attempted again, the other is (the same webhook-id).
  clock = back!.at;
  expect(await handle(back!.message, false, true, back!.received)).toBe('done');
  await settle();
  expectDelivered(groupId, [event!]);
  for (const r of [first, second]) {
    const got = delivered(r).filter((x) => x.id === event!.id);
    expect(got).toHaveLength(r.url('/hooks') === recorded!.url ? 1 : 2);
    expect((await deliveriesOf(event!.id)).find((x) => x.url === r.url('/hooks'))).toMatchObject({
      status: 'delivered',
    });
  }
});

test("a crash after the fan-out's attempt answered 500, before its record: the object's event is not marked seen, and its message, handed out again, delivers it", async () => {
  const groupId = await aGroup();
  const [event] = await eventsOf(groupId);
  first.answer = () => 500;
  try {
    // The failed attempt's record (pending, its retry due) is the crash.
    const crash = injectCrash(ddb(), 'UpdateItemCommand', 'before', (input) =>
      JSON.stringify(input).includes('"HTTP 500"'),
    );
    expect(await handle(eventMessage(event!), false, true)).toBe('crashed');
    expect(crash.crashed).toBe(1);
    // The cursor waits for that record: the object's event is not marked seen.
    expect(await eventCursorStore().seen(groupId)).toEqual(new Set());
  } finally {
    first.answer = () => 200;
  }
  const [back] = queue.splice(0);
  clock = back!.at;
  expect(await handle(back!.message, false, true, back!.received)).toBe('done');
  await settle();
  expectDelivered(groupId, [event!]);
  expect(await eventCursorStore().seen(groupId)).toEqual(new Set([1]));
});

test("a crash in the fan-out between two endpoints' deliveries: the message again gives each endpoint its delivery, once", async () => {
  const groupId = await aGroup();
  const [event] = await eventsOf(groupId);
  // The second delivery record's write is the crash: the first is written, its message never sent.
  let creates = 0;
  const crash = injectCrash(
    ddb(),
    'UpdateItemCommand',
    'before',
    (input) => String(input.ConditionExpression) === 'attribute_not_exists(pk)' && ++creates === 2,
  );
  expect(await handle(eventMessage(event!))).toBe('crashed');
  expect(crash.crashed).toBe(1);
  expect(queue).toHaveLength(1); // the event message, back after the visibility timeout
  await settle();
  expectDelivered(groupId, [event!]);
  for (const r of [first, second])
    expect(delivered(r).filter((x) => x.event.objectId === groupId)).toHaveLength(1);
});

test('a crash of the recovery after it moved checkAt on, before sending: its next run sends it', async () => {
  const groupId = await aGroup();
  const [event] = await eventsOf(groupId);
  await handle(eventMessage(event!));
  queue.length = 0; // both deliveries' messages lost
  clock += LOST_AFTER_MS + 1000;
  let touches = 0;
  const crash = injectCrash(ddb(), 'UpdateItemCommand', 'after', () => ++touches === 1);
  await expect(recoverDeliveries(new Date(clock))).rejects.toThrow(CrashError);
  expect(crash.crashed).toBe(1);
  expect(queue).toEqual([]);
  await settle();
  expectDelivered(groupId, [event!]);
});

/** Is this delivery message the endpoint's whose url is `url`? */
function isEndpointOf(m: { webhookEndpointId: string }, url: string): boolean {
  return endpointUrls.get(m.webhookEndpointId) === url;
}
async function deliveriesOf(eventId: string): Promise<{ status: string; url: string }[]> {
  const found: { status: string; url: string }[] = [];
  for (const [endpointId, url] of endpointUrls) {
    const page = await webhookDeliveryList().page(endpointId, undefined, 100);
    for (const d of page.deliveries) if (d.eventId === eventId) found.push({ status: d.status, url });
  }
  return found;
}
