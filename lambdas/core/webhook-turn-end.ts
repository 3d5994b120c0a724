/**
 * How a turn of a webhook delivery ends (core/webhook-delivery.ts takes the turns): the record of
 * an attempt's answer (delivered, failed for good, or retried on the schedule, with the endpoint's
 * breaker), a turn given back without an attempt (no slot, the breaker open) or a delivery given
 * up; each settles the delivery's record and, when a later delivery of its lane waited for it,
 * lets that one go.
 */
import {
  breakerRetryAfter,
  outcomeOf,
  RETRIES_SPENT,
  retryDelaySeconds,
  scheduleSpanMs,
  SPAN_SPENT,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '#domain/webhooks';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import type { WebhookAnswer } from '#shared/webhook-http';
import { webhookDeliveryStore, type DeliveryChange, type Settled } from '#store/webhook-deliveries';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { LEASE_MS } from './webhook-attempt';
import { Batch, checkAtFor, deliveryMessage, iso, schedule } from './webhook-batch';

/** A delivery's key in `Batch.unwritten`. */
export const unwrittenKey = (d: WebhookDelivery): string =>
  `${d.webhookEndpointId}#${d.objectId}#${d.sequence}`;

/**
 * A turn's end on the delivery: its record settled, or, for a turn taken before it had a record
 * (the fan-out's first attempt), its record written once as the turn left it.
 */
function settleTurn(d: WebhookDelivery, change: DeliveryChange, batch: Batch): Promise<Settled> {
  if (!batch.unwritten.delete(unwrittenKey(d))) return webhookDeliveryStore().settle(d, change);
  return webhookDeliveryStore().createSettled(d, change, batch.now());
}

/** Gives a delivery up (no attempt made now), and lets the next of its lane go. */
export async function giveUp(d: WebhookDelivery, reason: string, batch: Batch): Promise<void> {
  const settled = await settleTurn(
    d,
    {
      status: 'failed',
      attempts: d.attempts,
      round: d.round,
      lastStatusCode: d.lastStatusCode,
      lastError: reason,
      lastAttemptAt: d.lastAttemptAt,
    },
    batch,
  );
  await releaseNext(settled, d, batch);
}

/**
 * The next pending delivery of the lane is due now (or at its own retry time, if later), when a
 * later one waited for this one (it marked it): most deliveries have none, and no Query is made.
 */
async function releaseNext(settled: Settled, d: WebhookDelivery, batch: Batch): Promise<void> {
  if (!settled || !settled.waitedFor) return;
  const store = webhookDeliveryStore();
  const next = await store.nextPending(d);
  if (!next) return;
  const now = batch.now();
  const due = Math.max(now.getTime(), Date.parse(next.nextAttemptAt ?? now.toISOString()));
  if (await store.defer(next, now, iso(due), checkAtFor(due, now.getTime()))) schedule(batch, next, due);
}

/**
 * A turn passed without an attempt (the breaker is open). It uses none of the delivery's retries:
 * the next turn comes when the breaker lets a probe through, and no sooner than the wait of the
 * delivery's current step of the schedule (so a dead endpoint's deliveries take few turns). A
 * delivery still not delivered when the schedule's span has passed since it began ends `failed`.
 */
export async function skipTurn(d: WebhookDelivery, endpoint: WebhookEndpoint, batch: Batch): Promise<void> {
  const now = batch.now();
  const reason = 'not tried: the endpoint failed its last attempts';
  if (spanOver(d, now)) return giveUp({ ...d }, `${reason}; ${SPAN_SPENT}`, batch);
  const scale = config().webhookRetryScale;
  const step = retryDelaySeconds(Math.max(1, d.attempts), scale) ?? 0;
  const open = Date.parse(endpoint.retryAfter ?? now.toISOString());
  const due = Math.max(Math.min(open, probeLook(open, now.getTime(), scale)), now.getTime() + step * 1000);
  const settled = await settleTurn(
    d,
    {
      status: 'pending',
      attempts: d.attempts,
      round: d.round + 1,
      lastStatusCode: d.lastStatusCode,
      lastError: reason,
      lastAttemptAt: d.lastAttemptAt,
      nextAttemptAt: iso(due),
      checkAt: checkAtFor(due, now.getTime()),
    },
    batch,
  );
  if (settled) schedule(batch, d, due);
}

/**
 * When a turn skipped while the breaker may be held by a probe (open no longer than the probe's
 * hold, the attempt's lease) looks again: the lease scaled like the schedule, at least a second.
 * The hold is the attempt's real timeout, not scaled: under a shortened schedule a skipped turn
 * would otherwise wait out 30 s for an answer that came in milliseconds. In the cloud (scale 1)
 * this is the breaker's own time.
 */
const probeLook = (open: number, now: number, scale: number): number =>
  open - now <= LEASE_MS ? now + Math.max(1000, LEASE_MS * scale) : open;

/** Whether the schedule's span has passed since the delivery began. */
const spanOver = (d: WebhookDelivery, now: Date): boolean =>
  now.getTime() - Date.parse(d.startedAt ?? d.createdAt) > scheduleSpanMs(config().webhookRetryScale);

/**
 * A claimed turn that found no slot for its request: given back (no attempt counted), to come again
 * a second later, or at once on the slow lane.
 */
export async function passTurn(d: WebhookDelivery, lane: 'slow' | undefined, batch: Batch): Promise<void> {
  const now = batch.now();
  const delaySeconds = lane === 'slow' ? 0 : 1;
  const due = now.getTime() + delaySeconds * 1000;
  const settled = await settleTurn(
    d,
    {
      status: 'pending',
      attempts: d.attempts,
      round: d.round + 1,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      lastAttemptAt: d.lastAttemptAt,
      nextAttemptAt: iso(due),
      checkAt: checkAtFor(due, now.getTime()),
    },
    batch,
  );
  if (settled) batch.enqueue(deliveryMessage(d, lane), delaySeconds);
}

/**
 * The answer of an attempt on the delivery (and on the endpoint's breaker). `probe`: the attempt
 * was the breaker's probe, holding it until then: its answer ends that hold, whatever the batch's
 * copy of the endpoint says meanwhile (another turn may have read it again, as it was before).
 */
export async function record(
  d: WebhookDelivery,
  endpoint: WebhookEndpoint,
  answer: WebhookAnswer,
  batch: Batch,
  turn: { answered?: () => void; probe?: string } = {},
) {
  const { answered, probe } = turn;
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
    answered?.();
    await releaseNext(await settleTurn(d, { status: 'delivered', ...attempted }, batch), d, batch);
    // Most successes change nothing on the endpoint (as this batch read it): no write then.
    if ((endpoint.failures ?? 0) > 0 || endpoint.retryAfter !== undefined || probe !== undefined) {
      await endpoints.recordSuccess(d.merchantId, d.webhookEndpointId);
      endpoint.failures = 0;
      delete endpoint.retryAfter;
    }
    return;
  }
  if (outcome === 'gone') {
    const reason = `answered 410 Gone at ${now.toISOString()}`;
    await endpoints.disable(d.merchantId, d.webhookEndpointId, reason, now);
    logger.warn('webhook endpoint answered 410: disabled', { webhookEndpointId: d.webhookEndpointId });
    const settled = await settleTurn(
      d,
      { status: 'failed', ...attempted, lastError: 'HTTP 410: the endpoint was disabled' },
      batch,
    );
    await releaseNext(settled, d, batch);
    return;
  }
  batch.failedAttempts++;
  const lastError = status !== undefined ? `HTTP ${status}` : 'error' in answer ? answer.error : 'failed';
  const failures = await endpoints.recordFailure(d.merchantId, d.webhookEndpointId);
  endpoint.failures = failures;
  const retryAfter = breakerRetryAfter(failures, now, config().webhookRetryScale);
  if (
    retryAfter !== undefined &&
    (await endpoints.holdUntil(d.merchantId, d.webhookEndpointId, probe ?? endpoint.retryAfter, retryAfter))
  )
    endpoint.retryAfter = retryAfter;
  const delay = retryDelaySeconds(attempted.attempts, config().webhookRetryScale);
  if (delay === undefined || spanOver(d, now)) {
    logger.warn('webhook delivery failed for good', { lastError });
    const spent = delay === undefined ? RETRIES_SPENT : SPAN_SPENT;
    await releaseNext(
      await settleTurn(d, { status: 'failed', ...attempted, lastError: `${lastError}; ${spent}` }, batch),
      d,
      batch,
    );
    return;
  }
  const due = now.getTime() + delay * 1000;
  logger.info('webhook attempt failed; retried later', { lastError, nextAttemptAt: iso(due) });
  if (
    await settleTurn(
      d,
      {
        status: 'pending',
        ...attempted,
        lastError,
        nextAttemptAt: iso(due),
        checkAt: checkAtFor(due, now.getTime()),
      },
      batch,
    )
  )
    schedule(batch, d, due);
}
