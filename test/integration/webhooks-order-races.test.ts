/**
 * Two races of webhook delivery against DynamoDB Local, each a defect's test:
 * - the order rule's reads: a turn of an object's later event read the lane's earlier pending
 *   delivery, then the object's cursor; the fan-out of the earlier event writes its record first
 *   and marks it seen after, so between the two reads the earlier one was neither, and the later
 *   one was sent while the earlier one waited for its retry;
 * - an endpoint's `dateCreated`: taken when its create began, before its URL's check (up to 3 s of
 *   DNS) and its secret's seal, so an event created in between was dated after the endpoint yet
 *   fanned out without it, and never reached it.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newEvent, type ServiceEvent } from '#domain/events';
import { eventItem } from '#store/events';
import { ddb } from '#shared/ddb';
import { useWebhookQueue } from '#shared/webhook-queue';
import { Batch } from '#core/webhook-batch';
import { handleMessage } from '#core/webhook-delivery';
import { createEndpoint } from '#core/webhooks';
import { keys } from '#store/keys';
import { webhookDeliveryStore } from '#store/webhook-deliveries';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectPause } from '#support/ddb-faults';
import { eventMessage, TestWebhookQueue, useWebhookTestEnv } from '#support/webhook-env';
import { startReceiver, type Receiver } from '#support/webhook-receiver';

let table: TestTable;
let hooks: Receiver;
const queue = new TestWebhookQueue();
const MID = '32350000041';

beforeAll(async () => {
  table = await createTestTable();
  useWebhookTestEnv(table.tableName, 'webhooks-order-races');
  queue.install();
  hooks = await startReceiver();
});
afterAll(async () => {
  useWebhookQueue(undefined);
  await hooks.close();
  await table.drop();
});

async function writeEvent(objectId: string, sequence: number): Promise<ServiceEvent> {
  const event = newEvent(
    { type: 'payor.updated', merchantId: MID, objectId, sequence, data: { sequence } },
    new Date(queue.clock),
  );
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: eventItem(event) }));
  return event;
}

test('defect: a turn of event 2 racing the fan-out of event 1 (whose first attempt fails) sends 2 before 1', async () => {
  const created = await createEndpoint(
    MID,
    { url: hooks.url('/order'), enabledEvents: ['payor.*'] },
    new Date(queue.clock - 1000),
  );
  hooks.secrets = [created.secret];
  const objectId = randomUUID();
  // Event 1's first attempt is answered 503 (retried 5 s later, scaled); every other 204.
  hooks.answer = (r, attempt) => (r.event.sequence === 1 && attempt === 1 ? 503 : 204);
  const [first, second] = [await writeEvent(objectId, 1), await writeEvent(objectId, 2)];

  // The stream brings event 2 first (another shard): its fan-out writes its record and a message.
  const fanOut = queue.batch();
  await handleMessage(eventMessage(second), fanOut);
  expect(fanOut.messages).toHaveLength(1);
  const turn = fanOut.messages[0]!.message;

  // Event 2's turn reads the lane (no earlier delivery yet); event 1's fan-out runs before the
  // turn's read of the cursor: it attempts event 1 (503), records it pending, marks 1 seen.
  const cursor = keys.eventCursor(objectId);
  let once = false;
  const pause = injectPause(
    ddb(),
    'GetItemCommand',
    (input) => {
      const key = input.Key as { pk?: string } | undefined;
      return key?.pk === cursor.pk;
    },
    async () => {
      if (once) return;
      once = true;
      const other = queue.batch();
      await handleMessage(eventMessage(first), other);
      queue.keep(other);
    },
  );
  try {
    const batch = queue.batch();
    await handleMessage(turn, batch);
    queue.keep(batch);
  } finally {
    pause.remove();
  }
  expect(once).toBe(true);
  const earlier = await webhookDeliveryStore().get({
    webhookEndpointId: created.webhookEndpointId,
    objectId,
    sequence: 1,
  });
  // Event 1 is on its way (pending, its retry due): event 2 must not have been sent meanwhile.
  expect(earlier?.status).toBe('pending');
  await queue.pump();
  const got = hooks.received.filter((r) => r.event.objectId === objectId);
  expect(got.map((r) => [r.event.sequence, r.status])).toEqual([
    [1, 503],
    [1, 204],
    [2, 204],
  ]);
});

test("defect: an event created while an endpoint's create checked its URL was dated after the endpoint's dateCreated yet fanned out without it (never received): the endpoint is dated when it is written, after that event", async () => {
  const { useResolver } = await import('#core/webhook-target');
  const mid = '32350000042';
  const objectId = randomUUID();
  let release!: () => void;
  const held = new Promise<void>((ok) => (release = ok));
  let resolving!: () => void;
  const started = new Promise<void>((ok) => (resolving = ok));
  // The merchant's host takes a moment to resolve (up to 3 s are allowed).
  useResolver(async () => {
    resolving();
    await held;
    return [{ address: '127.0.0.1', family: 4 }];
  });
  try {
    const began = new Date();
    const creating = createEndpoint(
      mid,
      { url: hooks.url('/late').replace('127.0.0.1', 'localhost') },
      began,
    );
    await started;
    // Meanwhile a change of the merchant is announced and fanned out.
    const during = newEvent(
      { type: 'payor.updated', merchantId: mid, objectId, sequence: 1, data: {} },
      new Date(began.getTime() + 5),
    );
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: eventItem(during) }));
    await handleMessage(eventMessage(during), new Batch(() => new Date()));
    await new Promise((ok) => setTimeout(ok, 20));
    release();
    const created = await creating;
    hooks.secrets = [created.secret];
    // The endpoint is dated after the event it did not get: it never claims to have received it.
    expect(created.dateCreated > during.createdAt).toBe(true);
    expect(
      await webhookDeliveryStore().get({
        webhookEndpointId: created.webhookEndpointId,
        objectId,
        sequence: 1,
      }),
    ).toBeUndefined();

    // The next event of the object, created after the endpoint, reaches it.
    const after = newEvent(
      { type: 'payor.updated', merchantId: mid, objectId, sequence: 2, data: {} },
      new Date(Date.parse(created.dateCreated) + 1),
    );
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: eventItem(after) }));
    const batch = new Batch(() => new Date(Date.parse(after.createdAt) + 60_000));
    await handleMessage(eventMessage(after), batch);
    for (const m of batch.messages) await handleMessage(m.message, batch);
    expect(
      (
        await webhookDeliveryStore().get({
          webhookEndpointId: created.webhookEndpointId,
          objectId,
          sequence: 2,
        })
      )?.status,
    ).toBe('delivered');
  } finally {
    useResolver(undefined);
  }
});
