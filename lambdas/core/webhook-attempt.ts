/**
 * One attempt of a webhook delivery (core/webhook-delivery.ts holds the turn around it): the
 * endpoint's breaker for the turn, and the signed POST of the event to the address checked now,
 * which moves the endpoint to the slow lane when it is slow to answer.
 */
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES_READ, SLOW_ATTEMPT_MS } from '#contract/webhooks';
import type { ServiceEvent } from '#domain/events';
import { webhookHeaders, type WebhookDelivery, type WebhookEndpoint } from '#domain/webhooks';
import { clock, withTimeout } from '#shared/clock';
import { logger } from '#shared/logger';
import { secretBox } from '#shared/secret-box';
import { postWebhook, type WebhookAnswer } from '#shared/webhook-http';
import { eventStore } from '#store/events';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { eventView } from './events';
import { iso, markSlow } from './webhook-batch';
import { checkTarget } from './webhook-target';
import { secretContext } from './webhooks';

/** An attempt holds its delivery this long (the attempt's timeout and the writes around it). */
export const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

/**
 * The endpoint's breaker for this turn: closed, open (skip the turn), or its wait is over and this
 * turn is the one probe (whoever moves `retryAfter` on makes it; the others find it open). A probe
 * holds `retryAfter` at the end of its lease until its answer is recorded; `was` gives it back.
 */
export async function passBreaker(
  d: WebhookDelivery,
  endpoint: WebhookEndpoint,
  now: Date,
): Promise<'closed' | 'open' | { probe: string; was: string }> {
  if (endpoint.retryAfter === undefined) return 'closed';
  if (Date.parse(endpoint.retryAfter) > now.getTime()) return 'open';
  const was = endpoint.retryAfter;
  const probe = iso(now.getTime() + LEASE_MS);
  if (!(await webhookEndpointStore().holdUntil(d.merchantId, d.webhookEndpointId, was, probe))) return 'open';
  endpoint.retryAfter = probe;
  return { probe, was };
}

/** The signed POST of the event, to the address checked now. */
export async function attempt(
  d: WebhookDelivery,
  endpoint: WebhookEndpoint,
  now: Date,
  /** The event's body (the batch's prefetched one); read here when not given. */
  eventOf: (eventId: string, merchantId: string) => Promise<ServiceEvent | undefined> = (id, mid) =>
    eventStore().get(id, mid),
): Promise<WebhookAnswer | 'expired'> {
  // The host is resolved again at each attempt (the merchant's DNS): its time counts towards the
  // slow lane's, as the request's does.
  const checking = checkTarget(endpoint.url);
  const checked = await answeredWithin(checking, SLOW_ATTEMPT_MS);
  if (checked.answer === undefined) await markedSlow(endpoint);
  const target = checked.answer ?? (await checking);
  if (!target.ok) return { error: `refused: url ${target.reason}` };
  const event = await eventOf(d.eventId, d.merchantId);
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
  const request = postWebhook({
    url: target.url,
    address: target.address,
    family: target.family,
    headers: webhookHeaders(secrets, event.id, now, body),
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxResponseBytes: MAX_RESPONSE_BYTES_READ,
  });
  // Unanswered after SLOW_ATTEMPT_MS with the resolution: the endpoint's next deliveries go by
  // the slow lane (its mark written while this request still waits, so that other batches see it
  // at once).
  if (checked.answer === undefined) return request;
  const early = await answeredWithin(request, SLOW_ATTEMPT_MS - checked.counted);
  if (early.answer !== undefined) return early.answer;
  await markedSlow(endpoint);
  return request;
}

const markedSlow = (endpoint: WebhookEndpoint): Promise<void> =>
  markSlow(endpoint, clock.nowMs()).catch((error: unknown) =>
    logger.warn('webhook endpoint not marked slow', { error }),
  );

/** The steps in which answeredWithin counts its time. */
const SLOW_LOOK_MS = 100;

/**
 * The work's answer if it comes within `ms` of time this process could run, and the time counted
 * until it came (`ms` when it did not): counted in steps of
 * SLOW_LOOK_MS, each counting as no more than that however late its timer fired. A process starved
 * of CPU (a busy machine, the local runtime's invocations sharing one thread with the processing)
 * sees its timers fire late and the receiver's answer read late alike: neither makes a receiver
 * that answers at once look slow (a healthy loopback receiver was put in the slow lane when its
 * attempts were timed by the wall clock, the delivery bench at load 16). Where timers fire on
 * time (Lambda: one invocation a container) this is `ms` of real time.
 */
async function answeredWithin<T>(work: Promise<T>, ms: number): Promise<{ answer?: T; counted: number }> {
  let counted = 0;
  for (; counted < ms; counted += SLOW_LOOK_MS) {
    const done = await withTimeout<{ answer: T } | undefined>(
      work.then((answer) => ({ answer })),
      SLOW_LOOK_MS,
      () => undefined,
    );
    if (done !== undefined) return { answer: done.answer, counted };
  }
  return { counted };
}
