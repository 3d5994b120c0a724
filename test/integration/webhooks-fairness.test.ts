/**
 * A slow endpoint never slows another (issue 36 item 2), on DynamoDB Local with real receivers on
 * loopback that verify every request with the `standardwebhooks` package, and the delivery
 * function's own handler fed by the local runtime's queues (lib/local/local-queue.ts), each read by
 * its own invocations as an event source would: the webhook queue by 4 at once, the slow lane by
 * WEBHOOK_DELIVERY.slowConcurrency.
 *
 * One merchant's endpoint answers every request 2 s late and fails every tenth; another's answers
 * at once. Their events are interleaved on the webhook queue, as the stream forwarder puts them.
 * What must hold: the slow endpoint is put in the slow lane by its first slow attempt, and from then
 * on no invocation of the webhook queue (where the fast endpoint's deliveries go) makes an attempt
 * to it, so none of the fast endpoint's deliveries waits behind one of its attempts; the fast
 * endpoint's deliveries are never on the slow lane; every event reaches both endpoints, verified.
 * And a blocked endpoint (its receiver answers nothing until the test releases it): the fast
 * endpoint receives every one of its events while the blocked one has answered none, and once
 * released the blocked one receives all of its own. Behaviour only: no durations are asserted.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SLOW_LANE_MS, WEBHOOK_DELIVERY } from '#contract/webhooks';
import { Batch } from '#core/webhook-batch';
import { handleMessage } from '#core/webhook-delivery';
import { useResolver } from '#core/webhook-target';
import { createEndpoint } from '#core/webhooks';
import { newEvent, type ServiceEvent } from '#domain/events';
import { pendingDelivery } from '#domain/webhooks';
import { handler } from '#lambdas/notifications/deliver-webhooks';
import { LocalQueue } from '#lib/local/local-queue';
import { sleep } from '#shared/clock';
import { useWebhookQueue, type WebhookMessage } from '#shared/webhook-queue';
import { eventCursorStore } from '#store/event-cursors';
import { eventItem } from '#store/events';
import { webhookDeliveryStore } from '#store/webhook-deliveries';
import { webhookDeliveryList } from '#store/webhook-delivery-list';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectPause } from '#support/ddb-faults';
import { ddb } from '#shared/ddb';
import { delivered, startReceiver, until, type Receiver } from '#support/webhook-receiver';
import { useWebhookTestEnv, eventMessage } from '#support/webhook-env';

const SLOW_MID = '32350000041';
const FAST_MID = '32350000042';
const BLOCKED_MID = '32350000043';
/** A merchant with two endpoints: one in the slow lane, one not. */
const PAIR_MID = '32350000044';
const EVENTS = 24;
/** The blocked endpoint's events (and as many of the fast endpoint's beside them). */
const BLOCKED_EVENTS = 12;

let table: TestTable;
let slow: Receiver;
let fast: Receiver;
let slowEndpointId: string;
const main = new LocalQueue<WebhookMessage>('webhooks-fairness');
const slowLane = new LocalQueue<WebhookMessage>('webhooks-fairness-slow');
const context = {
  functionName: 'webhook-delivery',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

/** An invocation of one lane: when it began and ended, and the messages it was given. */
interface Invocation {
  lane: 'main' | 'slow';
  began: number;
  ended?: number;
  messages: WebhookMessage[];
}
const invocations: Invocation[] = [];
/** Each object's one event. */
const objectEvents = new Map<string, string>();

/**
 * `concurrency` invocations reading `queue` in batches, each batch's messages given to the handler
 * as an SQS event (those it reports failed come back after the visibility timeout), until stopped.
 */
function poll(queue: LocalQueue<WebhookMessage>, lane: Invocation['lane'], concurrency: number) {
  let running = true;
  const worker = async () => {
    while (running) {
      const batch = queue.receive(WEBHOOK_DELIVERY.batchSize, 60_000);
      if (batch.length === 0) {
        await sleep(20);
        continue;
      }
      const invocation: Invocation = {
        lane,
        began: Date.now(),
        messages: batch.map((m) => JSON.parse(m.body) as WebhookMessage),
      };
      invocations.push(invocation);
      const event = { Records: batch.map((m) => ({ messageId: m.id, body: m.body })) } as SQSEvent;
      const result = (await handler(event, context)) as SQSBatchResponse;
      invocation.ended = Date.now();
      const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
      for (const m of batch) if (!failed.has(m.id)) queue.delete(m.id);
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

beforeAll(async () => {
  table = await createTestTable();
  useWebhookTestEnv(table.tableName, 'webhooks-fairness-it');
  useWebhookQueue(main, slowLane);
  // Every request answered 2 s late; every tenth of them a 500.
  slow = await startReceiver((r) => ({ status: r.n % 10 === 0 ? 500 : 204, afterMs: 2000 }));
  fast = await startReceiver(() => 204);
  for (const [mid, receiver] of [
    [SLOW_MID, slow],
    [FAST_MID, fast],
  ] as const) {
    const created = await createEndpoint(
      mid,
      { url: receiver.url('/hooks'), enabledEvents: ['payor.*'] },
      new Date(Date.now() - 60_000),
    );
    receiver.secrets = [created.secret];
    if (mid === SLOW_MID) slowEndpointId = created.webhookEndpointId;
  }
});
afterAll(async () => {
  useWebhookQueue(undefined);
  await slow.close();
  await fast.close();
  await table.drop();
});

async function writeEvent(merchantId: string): Promise<ServiceEvent> {
  const event = newEvent(
    { type: 'payor.updated', merchantId, objectId: randomUUID(), sequence: 1, data: { merchantId } },
    new Date(),
  );
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: eventItem(event) }));
  objectEvents.set(event.objectId, event.id);
  return event;
}

test("a fast endpoint's deliveries never wait behind a slow endpoint's attempts: once it answers slowly, its attempts go by the slow lane", async () => {
  const slowEvents: ServiceEvent[] = [];
  const fastEvents: ServiceEvent[] = [];
  for (let i = 0; i < EVENTS; i++) {
    slowEvents.push(await writeEvent(SLOW_MID));
    fastEvents.push(await writeEvent(FAST_MID));
  }
  // The forwarder's messages, interleaved as the stream brings them.
  await main.send(
    slowEvents
      .flatMap((e, i) => [e, fastEvents[i]!])
      .map((e) => ({ message: eventMessage(e), delaySeconds: 0 })),
  );
  const pollers = [poll(main, 'main', 4), poll(slowLane, 'slow', WEBHOOK_DELIVERY.slowConcurrency)];
  try {
    const firsts = (r: Receiver) => new Set(delivered(r).map((x) => x.id));
    await until('every event delivered to both endpoints', () =>
      [
        ...slowEvents.map((e) => firsts(slow).has(e.id)),
        ...fastEvents.map((e) => firsts(fast).has(e.id)),
      ].every(Boolean),
    );
  } finally {
    await Promise.all(pollers.map((p) => p.stop()));
  }

  // Every request verified; each event delivered once to the fast endpoint (nothing failed there).
  expect([...slow.received, ...fast.received].every((x) => x.verified)).toBe(true);
  expect(
    delivered(fast)
      .map((x) => x.id)
      .sort(),
  ).toEqual(fastEvents.map((e) => e.id).sort());
  expect(slow.received.some((x) => x.status === 500)).toBe(true); // its errors were retried
  // Nothing broke: no message was reported failed (each would still be in its queue).
  expect(main.size + slowLane.size).toBe(0);

  // The slow endpoint was put in the slow lane by an attempt of its own, and its lane carried it.
  const endpoint = await webhookEndpointStore().get(SLOW_MID, slowEndpointId);
  expect(endpoint?.slowUntil).toBeDefined();
  const markedAt = Date.parse(endpoint!.slowUntil!) - SLOW_LANE_MS;
  const slowLaneIds = new Set(
    invocations.filter((i) => i.lane === 'slow').flatMap((i) => i.messages.map(eventIdOf)),
  );
  expect(slowEvents.some((e) => slowLaneIds.has(e.id))).toBe(true);
  // The fast endpoint's deliveries never went by the slow lane.
  expect(fastEvents.filter((e) => slowLaneIds.has(e.id))).toEqual([]);

  // No invocation of the webhook queue that began once the endpoint was in the slow lane made an
  // attempt to it: its messages there (a fan-out, a delivery) were passed to the slow lane, whose
  // messages are sent when that invocation ends, so a request for one of them during it is its own.
  const slowIds = new Set(slowEvents.map((e) => e.id));
  const attemptsInMain = invocations
    .filter((i) => i.lane === 'main' && i.began > markedAt)
    .flatMap((i) =>
      i.messages
        .map(eventIdOf)
        .filter((id) => slowIds.has(id))
        .filter((id) => slow.received.some((x) => x.id === id && x.at >= i.began && x.at <= i.ended!)),
    );
  expect(attemptsInMain).toEqual([]);
  // And invocations of the webhook queue did begin after it, with the slow endpoint's messages in them.
  expect(
    invocations.some(
      (i) => i.lane === 'main' && i.began > markedAt && i.messages.some((m) => slowIds.has(eventIdOf(m))),
    ),
  ).toBe(true);
});

test("a blocked endpoint (its receiver answers nothing until released) holds none of a fast endpoint's deliveries: the fast one receives every event meanwhile, the blocked one all of its own once released", async () => {
  // A receiver of its own on a merchant of its own, new to the slow lane, blocked from the start.
  let release!: (status: number) => void;
  const released = new Promise<number>((ok) => (release = ok));
  const blocked = await startReceiver(() => released);
  try {
    const created = await createEndpoint(
      BLOCKED_MID,
      { url: blocked.url('/hooks'), enabledEvents: ['payor.*'] },
      new Date(Date.now() - 60_000),
    );
    blocked.secrets = [created.secret];
    const blockedEvents: ServiceEvent[] = [];
    const fastEvents: ServiceEvent[] = [];
    for (let i = 0; i < BLOCKED_EVENTS; i++) {
      blockedEvents.push(await writeEvent(BLOCKED_MID));
      fastEvents.push(await writeEvent(FAST_MID));
    }
    await main.send(
      blockedEvents
        .flatMap((e, i) => [e, fastEvents[i]!])
        .map((e) => ({ message: eventMessage(e), delaySeconds: 0 })),
    );
    const pollers = [poll(main, 'main', 4), poll(slowLane, 'slow', WEBHOOK_DELIVERY.slowConcurrency)];
    try {
      const firsts = (r: Receiver) => new Set(delivered(r).map((x) => x.id));
      // Every fast event arrives while the blocked endpoint has answered nothing...
      await until('every fast event delivered', () => fastEvents.every((e) => firsts(fast).has(e.id)));
      expect(blocked.received.length).toBeGreaterThan(0); // ...though its attempts were made
      expect(blocked.received.filter((x) => x.status !== undefined)).toEqual([]);
      // ...and none of them had ended (no attempt recorded, not even a timed-out one): no fast
      // delivery waited for one to end (an attempt times out after DELIVERY_TIMEOUT_MS, 10 s).
      const { deliveries } = await webhookDeliveryList().page(created.webhookEndpointId, undefined, 100);
      expect(deliveries.filter((d) => d.attempts > 0)).toEqual([]);
      // Released: every one of its events reaches it (retried after the attempts it timed out).
      release(204);
      await until(
        'every blocked event delivered once released',
        () => blockedEvents.every((e) => firsts(blocked).has(e.id)),
        90_000,
      );
    } finally {
      await Promise.all(pollers.map((p) => p.stop()));
    }
    expect([...blocked.received, ...fast.received].every((x) => x.verified)).toBe(true);
  } finally {
    await blocked.close();
  }
});

test("a slow endpoint's record never holds another endpoint's attempt of the same event (defect, 2026-12-03: the fan-out wrote a slow-lane endpoint's record before it attempted the merchant's next endpoint)", async () => {
  // One merchant, two endpoints: the one its list names first is in the slow lane, and DynamoDB
  // answers that endpoint's record write only when the test says so.
  const other = await startReceiver(() => 204);
  const first = await startReceiver(() => 204);
  try {
    const created: { id: string; receiver: Receiver }[] = [];
    for (const r of [first, other]) {
      const e = await createEndpoint(
        PAIR_MID,
        { url: r.url('/hooks'), enabledEvents: ['payor.*'] },
        new Date(Date.now() - 60_000),
      );
      created.push({ id: e.webhookEndpointId, receiver: r });
      r.secrets = [e.secret];
    }
    const listed = (await webhookEndpointStore().list(PAIR_MID)).map((e) => e.webhookEndpointId);
    const [slowOne, fastOne] = listed.map((id) => created.find((c) => c.id === id)!);
    await webhookEndpointStore().markSlow(
      PAIR_MID,
      slowOne!.id,
      new Date(Date.now() + SLOW_LANE_MS).toISOString(),
    );
    const lanePrefix = `WHLANE#${slowOne!.id}#`;
    let held = 0;
    let release!: () => void;
    const released = new Promise<void>((ok) => (release = ok));
    const hold = async () => {
      held++;
      await released;
    };
    // Its record is written alone, or in a transaction with the object's cursor.
    const pauses = [
      injectPause(ddb(), 'UpdateItemCommand', (input) => inLane(input.Key, lanePrefix), hold),
      injectPause(
        ddb(),
        'TransactWriteItemsCommand',
        (input) => writesOf(input).some((w) => inLane(w.Key, lanePrefix)),
        hold,
      ),
    ];
    const event = await writeEvent(PAIR_MID);
    const record = { messageId: 'pair-1', body: JSON.stringify(eventMessage(event)) };
    let handled: Promise<unknown> | undefined;
    try {
      handled = handler({ Records: [record] } as SQSEvent, context);
      await until('the slow-lane record write held', () => held > 0, 10_000);
      // The other endpoint has its event while the slow-lane endpoint's record is still unwritten.
      await until(
        'the other endpoint delivered',
        () => delivered(fastOne!.receiver).some((x) => x.id === event.id),
        10_000,
      );
      expect(held).toBe(1);
    } finally {
      release();
      for (const pause of pauses) pause.remove();
      await handled;
    }
    // Then the slow-lane endpoint's delivery is written and goes by the slow lane, not attempted here.
    expect(slowOne!.receiver.received).toEqual([]);
    expect(slowLane.bodies().map((b) => JSON.parse(b) as WebhookMessage)).toContainEqual(
      expect.objectContaining({ kind: 'delivery', webhookEndpointId: slowOne!.id, lane: 'slow' }),
    );
  } finally {
    await other.close();
    await first.close();
  }
});

test("beside an endpoint attempted at the fan-out, a slow-lane endpoint's record is written with the object's cursor in one transaction, once the attempt is answered: the fan-out's way has no round trip of its own for it; a record already there (a replay's) or a conflict still ends with one record and the cursor", async () => {
  const mid = '32350000045';
  const fastReceiver = await startReceiver(() => 204);
  const slowReceiver = await startReceiver(() => 204);
  try {
    const ids: Record<'fast' | 'slow', string> = { fast: '', slow: '' };
    for (const [name, r] of [
      ['fast', fastReceiver],
      ['slow', slowReceiver],
    ] as const) {
      const e = await createEndpoint(
        mid,
        { url: r.url('/hooks'), enabledEvents: ['payor.*'] },
        new Date(Date.now() - 60_000),
      );
      ids[name] = e.webhookEndpointId;
      r.secrets = [e.secret];
    }
    await webhookEndpointStore().markSlow(mid, ids.slow, new Date(Date.now() + SLOW_LANE_MS).toISOString());
    const lane = `WHLANE#${ids.slow}#`;

    /** Each DynamoDB call the container's client sends, with its writes' keys and when. */
    const calls: { command: string; keys: string[]; at: number }[] = [];
    const name = 'fairness-recorder';
    ddb().middlewareStack.add(
      ((next: (args: { input: object }) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: { input: object }) => {
          const input = args.input as Record<string, unknown>;
          const keys =
            context.commandName === 'TransactWriteItemsCommand'
              ? writesOf(input).map((w) => pkOf(w.Key))
              : [pkOf(input.Key)];
          calls.push({ command: context.commandName ?? '', keys, at: Date.now() });
          return next(args);
        }) as never,
      { step: 'initialize', name },
    );
    const fanOut = async (event: ServiceEvent, id: string) => {
      calls.length = 0;
      const record = { messageId: id, body: JSON.stringify(eventMessage(event)) };
      const result = (await handler({ Records: [record] } as SQSEvent, context)) as SQSBatchResponse;
      expect(result.batchItemFailures).toEqual([]);
    };
    const slowMessages = (event: ServiceEvent) =>
      slowLane
        .bodies()
        .map((b) => JSON.parse(b) as WebhookMessage)
        .filter((x) => x.kind === 'delivery' && x.objectId === event.objectId);
    const seen = async (event: ServiceEvent) =>
      (await eventCursorStore().seen(event.objectId)).has(event.sequence);
    const slowRecord = (event: ServiceEvent) =>
      webhookDeliveryStore().get({ webhookEndpointId: ids.slow, objectId: event.objectId, sequence: 1 });
    try {
      // 1. The fast endpoint attempted, then the slow one's record and the cursor in one transaction.
      const one = await writeEvent(mid);
      await fanOut(one, 'together-1');
      const cursorWrites = calls.filter((c) => c.keys.includes(`WHSEEN#${one.objectId}`));
      expect(cursorWrites).toEqual([
        expect.objectContaining({
          command: 'TransactWriteItemsCommand',
          keys: expect.arrayContaining([expect.stringMatching(`^${lane}`)]),
        }),
      ]);
      expect(
        calls.filter((c) => c.command === 'UpdateItemCommand' && c.keys.some((k) => k.startsWith(lane))),
      ).toEqual([]);
      const answered = delivered(fastReceiver).find((x) => x.id === one.id);
      expect(answered).toBeDefined();
      expect(cursorWrites[0]!.at).toBeGreaterThanOrEqual(answered!.at);
      expect(await seen(one)).toBe(true);
      expect((await slowRecord(one))?.status).toBe('pending');
      expect(slowMessages(one)).toEqual([
        expect.objectContaining({ webhookEndpointId: ids.slow, lane: 'slow' }),
      ]);
      expect(slowReceiver.received).toEqual([]);

      // 2. The slow endpoint's record is there already (a replay wrote it): the transaction is
      // refused, the records are written one by one (that one left as it was, no second message),
      // then the cursor.
      const two = await writeEvent(mid);
      const replayed = pendingDelivery(
        ids.slow,
        mid,
        two,
        new Date(Date.now() - 5_000),
        new Date(Date.now() + 60_000).toISOString(),
      );
      expect(await webhookDeliveryStore().create(replayed, new Date())).toBe('created');
      await fanOut(two, 'together-2');
      expect(await seen(two)).toBe(true);
      expect(await slowRecord(two)).toMatchObject({
        status: 'pending',
        eventId: two.id,
        startedAt: replayed.startedAt,
      });
      expect(slowMessages(two)).toEqual([]);
      expect(delivered(fastReceiver).filter((x) => x.id === two.id)).toHaveLength(1);

      // 3. DynamoDB cancels the transaction for a conflict (another writer held the cursor): sent
      // again, one record and the cursor.
      const three = await writeEvent(mid);
      let conflicts = 0;
      const conflict = injectPause(
        ddb(),
        'TransactWriteItemsCommand',
        (input) => writesOf(input).some((w) => pkOf(w.Key) === `WHSEEN#${three.objectId}`),
        async () => {
          if (conflicts++ > 0) return;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled [TransactionConflict]',
            $metadata: {},
            CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
          });
        },
      );
      try {
        await fanOut(three, 'together-3');
      } finally {
        conflict.remove();
      }
      expect(conflicts).toBe(2);
      expect(await seen(three)).toBe(true);
      expect((await slowRecord(three))?.status).toBe('pending');
      expect(slowMessages(three)).toHaveLength(1);
    } finally {
      ddb().middlewareStack.remove(name);
    }
  } finally {
    await fastReceiver.close();
    await slowReceiver.close();
  }
});

const pkOf = (key: unknown): string => String((key as { pk?: unknown } | undefined)?.pk ?? '');
const inLane = (key: unknown, prefix: string): boolean => pkOf(key).startsWith(prefix);
/** The writes of a TransactWriteItems input (each item's Put, Update, Delete or ConditionCheck). */
const writesOf = (input: Record<string, unknown>): { Key?: unknown; Item?: unknown }[] =>
  ((input.TransactItems ?? []) as Record<string, { Key?: unknown; Item?: { pk?: unknown } }>[]).map(
    (item) => {
      const write = Object.values(item)[0]!;
      return { Key: write.Key ?? (write.Item && { pk: write.Item.pk }) };
    },
  );

/** The event a message is about (a delivery's by its object: one event per object here). */
const eventIdOf = (m: WebhookMessage): string => {
  if (m.kind === 'event') return m.eventId;
  if (m.kind === 'delivery') return objectEvents.get(m.objectId) ?? '';
  return '';
};

test('defect: only the request was timed, so an endpoint whose host took seconds to resolve (the merchant’s DNS, resolved again at each attempt) and then answered at once was never put in the slow lane: its resolution counts too', async () => {
  const mid = '32350000045';
  const port = new URL(fast.url('/')).port;
  try {
    useResolver(async () => [{ address: '127.0.0.1', family: 4 }]);
    const endpoint = await createEndpoint(
      mid,
      { url: `http://localhost:${port}/slow-dns`, enabledEvents: ['payor.*'] },
      new Date(Date.now() - 60_000),
    );
    fast.secrets = [...fast.secrets, endpoint.secret];
    // From now on the name takes 1.5 s to resolve (SLOW_ATTEMPT_MS is 1 s); the receiver answers at once.
    useResolver(async () => {
      await sleep(1_500);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const event = await writeEvent(mid);
    await handleMessage(eventMessage(event), new Batch());

    expect(delivered(fast, '/slow-dns').map((r) => (JSON.parse(r.body) as { id: string }).id)).toEqual([
      event.id,
    ]);
    const stored = await webhookEndpointStore().get(mid, endpoint.webhookEndpointId);
    expect(stored?.slowUntil).toBeDefined();
  } finally {
    useResolver(undefined);
  }
}, 30_000);
