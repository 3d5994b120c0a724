/**
 * The webhook delivery function's batch (core/webhook-delivery.ts): the messages a batch sends when
 * it ends, the slots that bound attempts to one endpoint, and the timing every part of delivery
 * shares (when a delivery's message counts as lost; how a due time becomes a queue delay).
 */
import {
  failedAttemptsMetricLine,
  deliveryKeyOf,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '#domain/webhooks';
import { clock, sleep } from '#shared/clock';
import { config } from '#shared/config';
import { emitMetricLine } from '#shared/metrics';
import { MAX_DELAY_SECONDS } from '#shared/sqs-queue';
import type { DeliveryMessage, WebhookMessage } from '#shared/webhook-queue';
import { webhookEndpointStore } from '#store/webhook-endpoints';

/**
 * A delivery whose message has not come this long after it was due is enqueued again by the sweep
 * (the longest: tests read it as the bound of a recovery).
 */
export const LOST_AFTER_MS = 5 * 60_000;
/**
 * LOST_AFTER_MS scaled like the retry schedule (WEBHOOK_RETRY_SCALE, 1 in the cloud), at least a
 * second: a local runtime with a shortened schedule recovers a lost message as quickly.
 */
export const lostAfterMs = (): number =>
  Math.max(1000, Math.round(LOST_AFTER_MS * config().webhookRetryScale));
/** Attempts to one endpoint in flight at once in one container; more wait for a slot. */
const PER_ENDPOINT_IN_FLIGHT = 4;
/** How long a delivery waits for a slot before its message is put back (a second later). */
const SLOT_WAIT_MS = 12_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** The messages to send after a batch, and the failed attempts it counted. */
export class Batch {
  readonly messages: { message: WebhookMessage; delaySeconds: number }[] = [];
  failedAttempts = 0;
  private readonly endpoints = new Map<string, Promise<WebhookEndpoint[]>>();

  constructor(readonly now: () => Date = () => clock.now()) {}

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
    const until = clock.nowMs() + SLOT_WAIT_MS;
    for (let waited = false; ; waited = true) {
      const n = inFlight.get(endpointId) ?? 0;
      if (n < PER_ENDPOINT_IN_FLIGHT) {
        inFlight.set(endpointId, n + 1);
        return waited ? 'waited' : 'now';
      }
      if (clock.nowMs() >= until) return false;
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

export const deliveryMessage = (
  d: Pick<WebhookDelivery, 'webhookEndpointId' | 'objectId' | 'sequence'>,
): DeliveryMessage => ({
  kind: 'delivery',
  ...deliveryKeyOf(d),
});

/**
 * A delivery message for `d` due at `dueMs`: sent now with a delay when SQS can hold it that
 * long; later ones are left to the sweep (their `checkAt` is their due time).
 */
export function schedule(batch: Batch, d: WebhookDelivery, dueMs: number): void {
  const delay = (dueMs - batch.now().getTime()) / 1000;
  if (delay <= MAX_DELAY_SECONDS) batch.enqueue(deliveryMessage(d), delay);
}

/** The time the sweep enqueues a delivery due at `dueMs` if its message did not come. */
export const checkAtFor = (dueMs: number, nowMs: number): string =>
  iso(dueMs - nowMs <= MAX_DELAY_SECONDS * 1000 ? dueMs + lostAfterMs() : dueMs);

/** The batch's failed attempts as the metric the `webhook-deliveries-failing` alarm watches. */
export function emitMetric(batch: Batch): void {
  emitMetricLine(failedAttemptsMetricLine(batch.failedAttempts, config().stage, batch.now()));
}
