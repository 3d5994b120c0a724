/**
 * Webhook delivery (docs/architecture.md "Webhooks", docs/decisions.md "Webhooks"): what the
 * delivery function does with each message of the webhook queue.
 *
 * - `event`: the fan-out. The object's cursor records the event's sequence; every endpoint of the
 *   merchant that receives it (enabled, created before it, subscribed) gets one delivery record,
 *   written once (a repeat finds it), and a message.
 * - `delivery`: one turn of a delivery, if it is due and nobody holds it: the order rule first (an
 *   earlier delivery of the same object to the same endpoint still pending, or an earlier event
 *   of the object not yet seen by the fan-out, holds it back), then the endpoint's breaker, then
 *   the claim (a lease), the address check, the signed POST and the record of its answer: 2xx
 *   delivered, 410 failed and the endpoint disabled, anything else retried on the schedule until it
 *   is spent. A delivered or failed delivery releases the next one of its lane.
 * - `replay`: one page of the merchant's events since a time, oldest first, each the endpoint
 *   receives made pending again (or created); then a message for the next page.
 *
 * Every pending delivery is on the due index with the time its message counts as lost (`checkAt`):
 * the webhook sweep (`sweepDue`) enqueues a new message for each one past it, so no delivery waits
 * on a message that was never sent or was lost. Retries longer than SQS's 15-minute delay are left
 * to the sweep alone.
 */
import { eventEnabled } from '#domain/events';
import { BREAKER_THRESHOLD, DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES_READ } from '#contract/webhooks';
import type { EventType } from '#contract/events';
import {
  breakerRetryAfter,
  deliveryKeyOf,
  failedAttemptsMetricLine,
  outcomeOf,
  receives,
  RETRIES_SPENT,
  retryDelaySeconds,
  webhookHeaders,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '#domain/webhooks';
import { mapLimit, sleep } from '#shared/concurrency';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { MAX_DELAY_SECONDS } from '#shared/sqs-queue';
import { secretBox } from '#shared/secret-box';
import { postWebhook, type WebhookAnswer } from '#shared/webhook-http';
import {
  webhookQueue,
  type DeliveryMessage,
  type EventMessage,
  type ReplayMessage,
  type WebhookMessage,
} from '#shared/webhook-queue';
import { keys } from '#shared/keys';
import { eventStore } from '#store/events';
import { webhookDeliveryStore } from '#store/webhook-deliveries';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { eventView } from './events';
import { checkTarget } from './webhook-target';
import { secretContext } from './webhooks';

/**
 * A delivery whose message has not come this long after it was due is enqueued again by the sweep
 * (the longest: tests read it as the bound of a recovery).
 */
export const LOST_AFTER_MS = 5 * 60_000;
/**
 * LOST_AFTER_MS scaled like the retry schedule (WEBHOOK_RETRY_SCALE, 1 in the cloud), at least a
 * second: a local runtime with a shortened schedule recovers a lost message as quickly.
 */
const lostAfterMs = (): number => Math.max(1000, Math.round(LOST_AFTER_MS * config().webhookRetryScale));
/** An attempt holds its delivery this long (the attempt's timeout and the writes around it). */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/**
 * An earlier event of the object not yet seen by the fan-out (it is still behind in the stream,
 * another shard) holds a delivery back this long at most after its event was created; then it
 * goes (the earlier event predates the cursor: written before webhooks were deployed).
 */
export const GAP_GRACE_MS = 10 * 60_000;
/** How often a delivery held back by such a gap looks again. */
const GAP_WAIT_SECONDS = 2;
/** Attempts to one endpoint in flight at once in one container; more wait for a slot. */
const PER_ENDPOINT_IN_FLIGHT = 4;
/** How long a delivery waits for a slot before its message is put back (a second later). */
const SLOT_WAIT_MS = 12_000;
/** Events read per replay message. */
export const REPLAY_PAGE = 100;
/** Deliveries the sweep re-enqueues per shard and run. */
export const SWEEP_LIMIT = 1000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The messages to send after a batch, and the failed attempts it counted. */
export class Batch {
  readonly messages: { message: WebhookMessage; delaySeconds: number }[] = [];
  failedAttempts = 0;
  private readonly endpoints = new Map<string, Promise<WebhookEndpoint[]>>();

  constructor(readonly now: () => Date = () => new Date()) {}

  enqueue(message: WebhookMessage, delaySeconds = 0): void {
    this.messages.push({ message, delaySeconds: Math.max(0, delaySeconds) });
  }

  /** The merchant's endpoints, read once per batch. */
  endpointsOf(merchantId: string): Promise<WebhookEndpoint[]> {
    let found = this.endpoints.get(merchantId);
    if (!found) {
      found = webhookEndpointStore().list(merchantId);
      this.endpoints.set(merchantId, found);
    }
    return found;
  }

  /**
   * A slot for an attempt to this endpoint: at most PER_ENDPOINT_IN_FLIGHT in flight in this
   * container. Waits for one up to SLOT_WAIT_MS (a burst to one healthy endpoint goes through
   * 4 at a time); false after that (a slow endpoint's): the message comes back a second later.
   */
  async take(endpointId: string): Promise<'now' | 'waited' | false> {
    const until = Date.now() + SLOT_WAIT_MS;
    for (let waited = false; ; waited = true) {
      const n = inFlight.get(endpointId) ?? 0;
      if (n < PER_ENDPOINT_IN_FLIGHT) {
        inFlight.set(endpointId, n + 1);
        return waited ? 'waited' : 'now';
      }
      if (Date.now() >= until) return false;
      await sleep(25);
    }
  }

  release(endpointId: string): void {
    const n = (inFlight.get(endpointId) ?? 1) - 1;
    if (n <= 0) inFlight.delete(endpointId);
    else inFlight.set(endpointId, n);
  }
}

/** Attempts in flight per endpoint in this container (all its invocations). */
const inFlight = new Map<string, number>();

const deliveryMessage = (
  d: Pick<WebhookDelivery, 'webhookEndpointId' | 'objectId' | 'sequence'>,
): DeliveryMessage => ({
  kind: 'delivery',
  ...deliveryKeyOf(d),
});

/**
 * A delivery message for `d` due at `dueMs`: sent now with a delay when SQS can hold it that
 * long; later ones are left to the sweep (their `checkAt` is their due time).
 */
function schedule(batch: Batch, d: WebhookDelivery, dueMs: number): void {
  const delay = (dueMs - batch.now().getTime()) / 1000;
  if (delay <= MAX_DELAY_SECONDS) batch.enqueue(deliveryMessage(d), delay);
}

/** The time the sweep enqueues a delivery due at `dueMs` if its message did not come. */
const checkAtFor = (dueMs: number, nowMs: number): string =>
  iso(dueMs - nowMs <= MAX_DELAY_SECONDS * 1000 ? dueMs + lostAfterMs() : dueMs);

export async function handleMessage(message: WebhookMessage, batch: Batch): Promise<void> {
  if (message.kind === 'event') return fanOut(message, batch);
  if (message.kind === 'delivery') return deliverTurn(message, batch);
  return replayPage(message, batch);
}

/** The fan-out of one new event. */
export async function fanOut(m: EventMessage, batch: Batch): Promise<void> {
  const now = batch.now();
  const store = webhookDeliveryStore();
  const endpoints = (await batch.endpointsOf(m.merchantId)).filter((e) => receives(e, m, eventEnabled));
  for (const e of endpoints) {
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
      nextAttemptAt: now.toISOString(),
      checkAt: iso(now.getTime() + lostAfterMs()),
    };
    // An existing record is this fan-out's repeat (or a replay's): its own messages carry it.
    if ((await store.create(delivery, now)) === 'created') batch.enqueue(deliveryMessage(delivery));
  }
  // Seen only once its deliveries exist: a later event of the object that finds this sequence
  // seen also finds these deliveries pending, and waits for them.
  await store.see(m.objectId, m.sequence, now);
}

/** Gives a delivery up (no attempt made now), and lets the next of its lane go. */
async function giveUp(d: WebhookDelivery, reason: string, batch: Batch): Promise<void> {
  const settled = await webhookDeliveryStore().settle(d, {
    status: 'failed',
    attempts: d.attempts,
    round: d.round,
    lastStatusCode: d.lastStatusCode,
    lastError: reason,
    lastAttemptAt: d.lastAttemptAt,
  });
  if (settled) await releaseNext(d, batch);
}

/** The next pending delivery of the lane is due now (or at its own retry time, if later). */
async function releaseNext(d: WebhookDelivery, batch: Batch): Promise<void> {
  const store = webhookDeliveryStore();
  const next = await store.nextPending(d);
  if (!next) return;
  const now = batch.now();
  const due = Math.max(now.getTime(), Date.parse(next.nextAttemptAt ?? now.toISOString()));
  if (await store.defer(next, now, iso(due), checkAtFor(due, now.getTime()))) schedule(batch, next, due);
}

/** A turn passed without an attempt (the breaker is open): the schedule moves on as after a failure. */
async function skipTurn(d: WebhookDelivery, reason: string, batch: Batch): Promise<void> {
  const now = batch.now();
  const round = d.round + 1;
  const delay = retryDelaySeconds(round, config().webhookRetryScale);
  if (delay === undefined) return giveUp({ ...d }, `${reason}; ${RETRIES_SPENT}`, batch);
  const due = now.getTime() + delay * 1000;
  const settled = await webhookDeliveryStore().settle(d, {
    status: 'pending',
    attempts: d.attempts,
    round,
    lastStatusCode: d.lastStatusCode,
    lastError: reason,
    lastAttemptAt: d.lastAttemptAt,
    nextAttemptAt: iso(due),
    checkAt: checkAtFor(due, now.getTime()),
  });
  if (settled) schedule(batch, d, due);
}

/** True when the delivery must wait for an earlier one of its object (and it was set to wait). */
async function heldByOrder(d: WebhookDelivery, batch: Batch): Promise<boolean> {
  if (d.sequence === 1) return false;
  const store = webhookDeliveryStore();
  const now = batch.now();
  const earlier = await store.earlierPending(d);
  if (earlier) {
    // Released when the earlier one is delivered or fails; the sweep looks again no sooner than
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
  const seen = await store.seen(d.objectId);
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
export async function deliverTurn(m: DeliveryMessage, batch: Batch): Promise<void> {
  const store = webhookDeliveryStore();
  const d = await store.get(m);
  if (!d || d.status !== 'pending') return;
  const now = batch.now();
  // Early (a repeated message) or held by another attempt: its own message or the sweep comes back.
  if (d.nextAttemptAt !== undefined && Date.parse(d.nextAttemptAt) > now.getTime() + 1000) return;
  if (d.leaseUntil !== undefined && Date.parse(d.leaseUntil) > now.getTime()) return;
  logger.appendKeys({ webhookEndpointId: d.webhookEndpointId, eventId: d.eventId });
  const endpoint = (await batch.endpointsOf(d.merchantId)).find(
    (e) => e.webhookEndpointId === d.webhookEndpointId,
  );
  if (!endpoint) return giveUp(d, 'the endpoint was deleted', batch);
  if (endpoint.status !== 'enabled') return giveUp(d, 'the endpoint is disabled', batch);
  if (await heldByOrder(d, batch)) return;

  const slot = await batch.take(endpoint.webhookEndpointId);
  if (!slot) {
    batch.enqueue(deliveryMessage(d), 1);
    return;
  }
  try {
    // After a wait the breaker may have opened meanwhile: read the endpoint as it is now.
    if (slot === 'waited') {
      const now = await webhookEndpointStore().get(d.merchantId, d.webhookEndpointId);
      if (!now || now.status !== 'enabled')
        return await giveUp(d, now ? 'the endpoint is disabled' : 'the endpoint was deleted', batch);
      endpoint.retryAfter = now.retryAfter;
    }
    if (endpoint.retryAfter !== undefined) {
      if (Date.parse(endpoint.retryAfter) > now.getTime())
        return await skipTurn(d, 'not tried: the endpoint failed its last attempts', batch);
      // One probe at a time: whoever moves retryAfter on makes it; the others skip their turn.
      const probeEnds = iso(now.getTime() + LEASE_MS);
      const probe = await webhookEndpointStore().holdUntil(
        d.merchantId,
        d.webhookEndpointId,
        endpoint.retryAfter,
        probeEnds,
      );
      endpoint.retryAfter = probeEnds;
      if (!probe) return await skipTurn(d, 'not tried: the endpoint failed its last attempts', batch);
    }
    const leaseUntil = now.getTime() + LEASE_MS;
    if (!(await store.claim(d, now, iso(leaseUntil), iso(leaseUntil + lostAfterMs())))) return;
    const answer = await attempt(d, endpoint, now);
    if (answer === 'expired') return await giveUp(d, 'the event expired before it could be delivered', batch);
    await record(d, endpoint, answer, batch);
  } finally {
    batch.release(endpoint.webhookEndpointId);
  }
}

/** The signed POST of the event, to the address checked now. */
async function attempt(
  d: WebhookDelivery,
  endpoint: WebhookEndpoint,
  now: Date,
): Promise<WebhookAnswer | 'expired'> {
  const target = await checkTarget(endpoint.url);
  if (!target.ok) return { error: `refused: url ${target.reason}` };
  const event = await eventStore().get(d.eventId, d.merchantId);
  if (!event) return 'expired';
  const body = JSON.stringify(eventView(event));
  const context = secretContext(endpoint);
  const secrets = [await secretBox().open(endpoint.secret, context)];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretUntil &&
    Date.parse(endpoint.previousSecretUntil) > now.getTime()
  )
    secrets.push(await secretBox().open(endpoint.previousSecret, context));
  return postWebhook({
    url: target.url,
    address: target.address,
    family: target.family,
    headers: webhookHeaders(secrets, event.id, now, body),
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxResponseBytes: MAX_RESPONSE_BYTES_READ,
  });
}

/** The answer of an attempt on the delivery (and on the endpoint's breaker). */
async function record(d: WebhookDelivery, endpoint: WebhookEndpoint, answer: WebhookAnswer, batch: Batch) {
  const store = webhookDeliveryStore();
  const endpoints = webhookEndpointStore();
  const now = batch.now();
  const status = 'status' in answer ? answer.status : undefined;
  const attempted = {
    attempts: d.attempts + 1,
    round: d.round + 1,
    lastStatusCode: status,
    lastAttemptAt: now.toISOString(),
  };
  const outcome = outcomeOf(status);
  if (outcome === 'delivered') {
    if (await store.settle(d, { status: 'delivered', ...attempted })) await releaseNext(d, batch);
    await endpoints.recordSuccess(d.merchantId, d.webhookEndpointId);
    return;
  }
  if (outcome === 'gone') {
    const reason = `answered 410 Gone at ${now.toISOString()}`;
    await endpoints.disable(d.merchantId, d.webhookEndpointId, reason, now);
    logger.warn('webhook endpoint answered 410: disabled', { webhookEndpointId: d.webhookEndpointId });
    if (
      await store.settle(d, {
        status: 'failed',
        ...attempted,
        lastError: 'HTTP 410: the endpoint was disabled',
      })
    )
      await releaseNext(d, batch);
    return;
  }
  batch.failedAttempts++;
  const lastError = status !== undefined ? `HTTP ${status}` : 'error' in answer ? answer.error : 'failed';
  const failures = await endpoints.recordFailure(d.merchantId, d.webhookEndpointId);
  const retryAfter = breakerRetryAfter(failures, now, config().webhookRetryScale);
  if (retryAfter !== undefined)
    await endpoints.holdUntil(d.merchantId, d.webhookEndpointId, endpoint.retryAfter, retryAfter);
  const delay = retryDelaySeconds(attempted.round, config().webhookRetryScale);
  if (delay === undefined) {
    logger.warn('webhook delivery failed for good', { lastError });
    if (
      await store.settle(d, { status: 'failed', ...attempted, lastError: `${lastError}; ${RETRIES_SPENT}` })
    )
      await releaseNext(d, batch);
    return;
  }
  const due = now.getTime() + delay * 1000;
  logger.info('webhook attempt failed; retried later', { lastError, nextAttemptAt: iso(due) });
  if (
    await store.settle(d, {
      status: 'pending',
      ...attempted,
      lastError,
      nextAttemptAt: iso(due),
      checkAt: checkAtFor(due, now.getTime()),
    })
  )
    schedule(batch, d, due);
}

/** One page of a replay, oldest event first; the next page is the next message. */
export async function replayPage(m: ReplayMessage, batch: Batch): Promise<void> {
  const store = webhookDeliveryStore();
  const now = batch.now();
  const endpoint = await webhookEndpointStore().get(m.merchantId, m.webhookEndpointId);
  if (!endpoint || endpoint.status !== 'enabled') return;
  // An endpoint receives the events created from its own creation on, replayed or not.
  const since = m.since > endpoint.dateCreated ? m.since : endpoint.dateCreated;
  const { events, after } = await store.eventsBetween(m.merchantId, since, m.until, m.after, REPLAY_PAGE);
  const wanted = events.filter((e) => eventEnabled(e.type, endpoint.enabledEvents));
  await mapLimit(wanted, 8, async (event) => {
    const d: WebhookDelivery = {
      webhookEndpointId: endpoint.webhookEndpointId,
      merchantId: m.merchantId,
      eventId: event.id,
      type: event.type,
      objectId: event.objectId,
      sequence: event.sequence,
      createdAt: event.createdAt,
      status: 'pending',
      attempts: 0,
      round: 0,
      nextAttemptAt: now.toISOString(),
      checkAt: iso(now.getTime() + lostAfterMs()),
    };
    if ((await store.replay(d, now)) === 'reset') batch.enqueue(deliveryMessage(d));
  });
  // Within one page the resets above ran at once: the order rule still holds, since a delivery
  // whose earlier event is pending waits for it, whichever was reset first. The next page's
  // message is sent now: if it cannot be, this page fails and runs again (its resets find the
  // deliveries pending and change nothing).
  if (after !== undefined) {
    const failed = await webhookQueue().send([{ message: { ...m, after }, delaySeconds: 0 }]);
    if (failed.length > 0) throw new Error('the next replay page could not be queued');
  }
  logger.info('webhook replay page', {
    webhookEndpointId: m.webhookEndpointId,
    events: events.length,
    sent: wanted.length,
  });
}

/**
 * The webhook sweep: every pending delivery whose `checkAt` has passed gets a new message (its
 * message was lost, never sent, or its retry was longer than a queue delay), and its `checkAt`
 * moves on. Bounded: SWEEP_LIMIT per shard and run.
 */
export async function sweepDue(now: Date = new Date()): Promise<{ enqueued: number }> {
  const store = webhookDeliveryStore();
  const batch = new Batch(() => now);
  for (const shard of keys.webhookDueShards()) {
    const due = await store.due(shard, now, SWEEP_LIMIT);
    await mapLimit(due, 16, async (d) => {
      if (await store.touch(d, iso(now.getTime() + lostAfterMs()))) batch.enqueue(deliveryMessage(d));
    });
  }
  const failed = await webhookQueue().send(batch.messages);
  if (failed.length > 0)
    logger.warn('webhook sweep: messages not enqueued; the next sweep tries again', {
      failed: failed.length,
    });
  return { enqueued: batch.messages.length - failed.length };
}

/** The batch's failed attempts as the metric the `webhook-deliveries-failing` alarm watches. */
export function emitMetric(batch: Batch): void {
  process.stdout.write(`${failedAttemptsMetricLine(batch.failedAttempts, config().stage, batch.now())}\n`);
}

/** Threshold re-exported for the admin tools' listing of failing endpoints. */
export { BREAKER_THRESHOLD };
