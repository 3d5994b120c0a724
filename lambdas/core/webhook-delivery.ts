/**
 * Webhook delivery (docs/architecture.md "Webhooks", docs/decisions.md "Webhooks"): what the
 * delivery function does with each message of the webhook queue.
 *
 * - `event`: the fan-out. The object's cursor records the event's sequence; every endpoint of the
 *   merchant that receives it (enabled, created before it, subscribed) gets one delivery record,
 *   written once (a repeat finds it), and a message; an object's first event to an endpoint that
 *   answers quickly is attempted here instead, its record written once after the attempt (the
 *   event's message stands for it until then; the other endpoints' records are then written with
 *   the cursor in one transaction). The event's body is read with the batch's others in one
 *   BatchGetItem (Batch.prefetchEvents).
 * - `delivery`: one turn of a delivery, if it is due and nobody holds it: the order rule first (an
 *   earlier delivery of the same object to the same endpoint still pending, or an earlier event
 *   of the object not yet seen by the fan-out, holds it back), then the claim (a lease), the
 *   endpoint's breaker (open: the turn is skipped, using none of the retries), the address check,
 *   the signed POST and the record of its answer: 2xx delivered, 410 failed and the endpoint
 *   disabled, anything else retried on the schedule until it is spent. A delivered or failed delivery releases the next one of its lane.
 * - `replay`: one page of the merchant's events (core/webhook-recovery.ts) since a time, oldest first, each the endpoint
 *   receives made pending again (or created); then a message for the next page.
 *
 * Every pending delivery is on the due index with the time its message counts as lost (`checkAt`):
 * the webhook recovery (`recoverDeliveries`) enqueues a new message for each one past it, so no delivery waits
 * on a message that was never sent or was lost. Retries longer than SQS's 15-minute delay are left
 * to the recovery alone.
 */
import { eventEnabled } from '#domain/events';
import type { EventType } from '#contract/events';
import { receives, type WebhookDelivery, type WebhookEndpoint } from '#domain/webhooks';
import { logger } from '#shared/logger';
import type { DeliveryMessage, EventMessage, WebhookMessage } from '#shared/webhook-queue';
import { eventCursorStore } from '#store/event-cursors';
import { webhookDeliveryStore } from '#store/webhook-deliveries';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { Batch, checkAtFor, deliveryMessage, inSlowLane, iso, lostAfterMs, schedule } from './webhook-batch';
import { attempt, LEASE_MS, passBreaker } from './webhook-attempt';
import { replayPage } from './webhook-recovery';
import { giveUp, passTurn, record, skipTurn, unwrittenKey } from './webhook-turn-end';

/**
 * An earlier event of the object not yet seen by the fan-out (it is still behind in the stream,
 * another shard) holds a delivery back this long at most after its event was created; then it
 * goes (the earlier event predates the cursor: written before webhooks were deployed).
 */
const GAP_GRACE_MS = 10 * 60_000;
/** How often a delivery held back by such a gap (or by an earlier one it could not mark) looks again. */
const GAP_WAIT_SECONDS = 2;
/**
 * @param receives how many times the queue has handed this message out (SQS's
 * ApproximateReceiveCount): a message handed out again (its first handling broke, or was cut off)
 * makes the fan-out write each record before its attempt, so that a delivery recorded by the first
 * handling is not attempted again.
 */
export async function handleMessage(message: WebhookMessage, batch: Batch, receives = 1): Promise<void> {
  if (message.kind === 'event') return fanOut(message, batch, receives > 1);
  if (message.kind === 'delivery') return deliverTurn(message, batch);
  return replayPage(message, batch);
}

/** The fan-out of one new event (`again`: its message was handed out before). */
async function fanOut(m: EventMessage, batch: Batch, again: boolean): Promise<void> {
  const now = batch.now();
  const store = webhookDeliveryStore();
  const endpoints = (await batch.endpointsOf(m.merchantId)).filter((e) => receives(e, m, eventEnabled));
  /** The attempts made here before any record of them is written. */
  const unwritten: { d: WebhookDelivery; e: WebhookEndpoint }[] = [];
  /** Each other endpoint's record written (and then its attempt here, or its message). */
  const recorded: { d: WebhookDelivery; e: WebhookEndpoint; claimed: boolean; slow: boolean }[] = [];
  for (const e of endpoints) {
    const slow = inSlowLane(e, now.getTime());
    // An object's first event to an endpoint that answers quickly is attempted here: no second
    // message, no claim, no read of what was just written. The first time its message is handed
    // out, before any record of it is written: the message, deleted only once the batch has
    // handled it, stands for the delivery until the turn writes its record as the attempt left it
    // (one write). A message handed out again writes the record first, claimed (a repeat finds it).
    // Later events go by their message (the order rule first).
    const first = batch.attemptsAtFanOut && !slow && m.sequence === 1 && e.status === 'enabled';
    const claimed = first && again;
    const leaseUntil = now.getTime() + LEASE_MS;
    const delivery: WebhookDelivery = {
      webhookEndpointId: e.webhookEndpointId,
      merchantId: m.merchantId,
      eventId: m.eventId,
      type: m.type as EventType,
      objectId: m.objectId,
      sequence: m.sequence,
      createdAt: m.createdAt,
      status: 'pending',
      attempts: 0,
      round: 0,
      startedAt: now.toISOString(),
      nextAttemptAt: now.toISOString(),
      checkAt: iso(claimed ? leaseUntil + lostAfterMs() : now.getTime() + lostAfterMs()),
      ...(claimed && { leaseUntil: iso(leaseUntil) }),
    };
    if (first && !again) {
      batch.unwritten.add(unwrittenKey(delivery));
      unwritten.push({ d: delivery, e });
    } else recorded.push({ d: delivery, e, claimed, slow });
  }
  // Seen only once its deliveries exist or were answered 2xx: a later event of the object that
  // finds this sequence seen also finds these deliveries pending (and waits for them), or they are
  // at their endpoints already. So the cursor is written beside the records of the attempts
  // answered 2xx, after those of any other.
  let waiting = unwritten.length;
  let open!: () => void;
  const attemptsWritten = new Promise<void>((resolve) => (open = resolve));
  if (waiting === 0) open();
  const turns = unwritten.map(({ d, e }) => {
    let done = false;
    const ready = () => {
      if (!done && --waiting === 0) open();
      done = true;
    };
    return claimedTurn(d, e, undefined, batch, ready).then(ready);
  });
  // The other endpoints' records are not written before those attempts: a record written slowly
  // (a slow lane's endpoint listed first, a busy table) holds no other endpoint's attempt of the
  // event. Beside attempts, they are written with the cursor in one transaction once the attempts
  // are answered: one DynamoDB round trip on the fan-out's way to its end, as when every endpoint
  // is attempted (the cursor beside the attempts' records), where the records and then the cursor
  // took two (at twice the units of those writes, paid only by an event that both attempts an
  // endpoint and leaves another to its message: a slow lane's, mostly). Without attempts, the
  // records and then the cursor. An existing record is this fan-out's repeat (or a replay's): its
  // own messages carry it, and the records are then written one by one.
  const seen = { objectId: m.objectId, sequence: m.sequence };
  const together =
    unwritten.length > 0 && recorded.length > 0
      ? attemptsWritten.then(() =>
          store.createSeen(
            recorded.map(({ d }) => d),
            seen,
            now,
          ),
        )
      : undefined;
  const creates = recorded.map(async ({ d }) =>
    together && (await together) === 'created' ? 'created' : store.create(d, now),
  );
  const records = recorded.map(async ({ d, e, claimed, slow }, i) => {
    if ((await creates[i]) !== 'created') return;
    if (claimed) return claimedTurn(d, e, undefined, batch);
    batch.enqueue(deliveryMessage(d, slow ? 'slow' : undefined));
  });
  const see = () => eventCursorStore().see(m.objectId, m.sequence, now);
  const recordsWritten = Promise.all(creates);
  const cursor = together
    ? together.then(async (outcome) => {
        if (outcome === 'exists') await recordsWritten.then(see);
      })
    : Promise.all([attemptsWritten, recordsWritten]).then(see);
  await Promise.all([...turns, ...records, cursor]);
}

async function heldByOrder(d: WebhookDelivery, batch: Batch): Promise<boolean> {
  if (d.sequence === 1) return false;
  const store = webhookDeliveryStore();
  const now = batch.now();
  // The cursor before the pending records: the fan-out writes an event's records first and marks
  // it seen after, so a sequence read as seen has its pending records there to be found. Read the
  // other way, an earlier event fanned out between the two reads was neither.
  const seen = await eventCursorStore().seen(d.objectId);
  let earlier = await store.earlierPending(d);
  // The earlier one is marked, so that its end releases this one; it changed meanwhile: look again.
  let marked = false;
  for (let looks = 1; earlier && looks <= 3; looks++) {
    if ((marked = await store.markWaitedFor(earlier))) break;
    earlier = await store.earlierPending(d);
  }
  if (earlier && !marked) {
    // Still there but never marked (it changed at each look): no release will come, so this one
    // looks again soon rather than at the earlier one's check time (its lease and the time a
    // message counts as lost: five and a half minutes in the cloud).
    const due = now.getTime() + GAP_WAIT_SECONDS * 1000;
    if (await store.defer(d, now, iso(due), checkAtFor(due, now.getTime()))) schedule(batch, d, due);
    return true;
  }
  if (earlier) {
    // Released when the earlier one is delivered or fails; the recovery looks again no sooner than
    // the earlier one's own next look.
    const next = Date.parse(earlier.nextAttemptAt ?? now.toISOString());
    const check = Math.max(Date.parse(earlier.checkAt ?? now.toISOString()), now.getTime() + lostAfterMs());
    await store.defer(d, now, iso(Math.max(next, now.getTime())), iso(check));
    logger.info('webhook delivery waits for an earlier event of its object', {
      eventId: d.eventId,
      earlierEventId: earlier.eventId,
    });
    return true;
  }
  for (let k = 1; k < d.sequence; k++) {
    if (seen.has(k)) continue;
    if (now.getTime() - Date.parse(d.createdAt) < GAP_GRACE_MS) {
      const due = now.getTime() + GAP_WAIT_SECONDS * 1000;
      if (await store.defer(d, now, iso(due), checkAtFor(due, now.getTime()))) schedule(batch, d, due);
      return true;
    }
    logger.warn('webhook delivery sent without an earlier event of its object (not seen in time)', {
      eventId: d.eventId,
      missingSequence: k,
    });
    break;
  }
  return false;
}

/** One turn of a delivery. */
async function deliverTurn(m: DeliveryMessage, batch: Batch): Promise<void> {
  const store = webhookDeliveryStore();
  const d = await store.get(m);
  if (!d || d.status !== 'pending') return;
  const now = batch.now();
  // Early (a repeated message) or held by another attempt: its own message or the recovery comes back.
  if (d.nextAttemptAt !== undefined && Date.parse(d.nextAttemptAt) > now.getTime() + 1000) return;
  if (d.leaseUntil !== undefined && Date.parse(d.leaseUntil) > now.getTime()) return;
  logger.appendKeys({ webhookEndpointId: d.webhookEndpointId, eventId: d.eventId });
  const endpoint = (await batch.endpointsOf(d.merchantId)).find(
    (e) => e.webhookEndpointId === d.webhookEndpointId,
  );
  if (!endpoint) return giveUp(d, 'the endpoint was deleted', batch);
  if (endpoint.status !== 'enabled') return giveUp(d, 'the endpoint is disabled', batch);
  // A slow endpoint's attempts would hold the invocations every other endpoint's deliveries need.
  const slowLane = () => m.lane !== 'slow' && inSlowLane(endpoint, batch.now().getTime());
  if (slowLane()) return batch.enqueue(deliveryMessage(d, 'slow'));
  if (await heldByOrder(d, batch)) return;

  // The turn is this one's before anything is decided: a second message of the same delivery
  // (SQS delivers at least once; the recovery re-sends a late one) finds it claimed and stops, so
  // neither skips a turn the other is taking nor holds the breaker's probe without a request.
  const leaseUntil = now.getTime() + LEASE_MS;
  if (!(await store.claim(d, now, iso(leaseUntil), iso(leaseUntil + lostAfterMs())))) return;
  return claimedTurn(d, endpoint, m.lane, batch);
}

/**
 * A turn this invocation holds (claimed, or the fan-out's first attempt, which has no record yet):
 * the attempt. `answered` is called as soon as the request is answered 2xx, before its record.
 */
async function claimedTurn(
  d: WebhookDelivery,
  endpoint: WebhookEndpoint,
  lane: 'slow' | undefined,
  batch: Batch,
  answered?: () => void,
): Promise<void> {
  const now = batch.now();
  const slowLane = () => lane !== 'slow' && inSlowLane(endpoint, batch.now().getTime());
  // The endpoint's slot bounds its requests in flight, not the reads and writes around them.
  const slot = await batch.take(endpoint.webhookEndpointId, slowLane);
  if (!slot) return passTurn(d, slowLane() ? 'slow' : lane, batch);
  let holding = true;
  const free = () => {
    if (holding) batch.release(endpoint.webhookEndpointId);
    holding = false;
  };
  try {
    // After a wait the breaker may have opened meanwhile: read the endpoint as it is now.
    if (slot === 'waited') {
      const now = await webhookEndpointStore().get(d.merchantId, d.webhookEndpointId);
      if (!now || now.status !== 'enabled')
        return await giveUp(d, now ? 'the endpoint is disabled' : 'the endpoint was deleted', batch);
      endpoint.retryAfter = now.retryAfter;
    }
    const breaker = await passBreaker(d, endpoint, now);
    if (breaker === 'open') return await skipTurn(d, endpoint, batch);
    const answer = await attempt(d, endpoint, now, (id, mid) => batch.eventOf(id, mid));
    // The request is over: the writes that record it do not hold the endpoint's slot.
    free();
    if (answer === 'expired') {
      // No request was made: a probe's hold is given back.
      if (breaker !== 'closed')
        await webhookEndpointStore().holdUntil(d.merchantId, d.webhookEndpointId, breaker.probe, breaker.was);
      return await giveUp(d, 'the event expired before it could be delivered', batch);
    }
    await record(d, endpoint, answer, batch, {
      answered,
      probe: breaker === 'closed' ? undefined : breaker.probe,
    });
  } finally {
    free();
  }
}
