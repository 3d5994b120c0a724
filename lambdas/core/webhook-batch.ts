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
import { SLOW_LANE_MS } from '#contract/webhooks';
import type { ServiceEvent } from '#domain/events';
import { clock, withTimeout } from '#shared/clock';
import { config } from '#shared/config';
import { emitMetricLine } from '#shared/metrics';
import { MAX_DELAY_SECONDS } from '#shared/sqs-queue';
import type { DeliveryMessage, EventMessage, WebhookMessage } from '#shared/webhook-queue';
import { eventStore } from '#store/events';
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
/**
 * Requests to one endpoint in flight at once in one invocation (a container runs one at a time);
 * more wait for a slot. A slot is held from the claim to the answer, not over the writes after it.
 */
export const PER_ENDPOINT_IN_FLIGHT = 4;
/** How long a delivery waits for a slot before its message is put back (a second later). */
const SLOT_WAIT_MS = 12_000;
/**
 * A wait for a slot longer than this is 'waited': the endpoint is read again before the attempt
 * (others' attempts may have opened its breaker meanwhile); a burst's turns take less.
 */
const WAITED_MS = 1000;
/** How often a wait for a slot looks whether it should stop (its endpoint went to the slow lane). */
const STOP_LOOK_MS = 50;
export const iso = (ms: number) => new Date(ms).toISOString();

/** The messages to send after a batch, and the failed attempts it counted. */
export class Batch {
  readonly messages: { message: WebhookMessage; delaySeconds: number }[] = [];
  failedAttempts = 0;
  /**
   * The deliveries (endpoint#object#sequence) whose turn the fan-out took before writing their
   * record (an object's first event): the turn's end writes it.
   */
  readonly unwritten = new Set<string>();
  private readonly endpoints = new Map<string, Promise<WebhookEndpoint[]>>();
  private readonly events = new Map<string, Promise<ServiceEvent | undefined>>();
  /** Attempts in flight per endpoint in this invocation. */
  private readonly inFlight = new Map<string, number>();
  /** Attempts waiting for a slot per endpoint, oldest first. */
  private readonly waiting = new Map<string, ((granted: boolean) => void)[]>();

  /**
   * @param attemptsAtFanOut whether the fan-out attempts an object's first event at once (the
   * delivery function's way); without it every delivery goes by a message of its own (tests that
   * hold or repeat that message).
   */
  constructor(
    readonly now: () => Date = () => clock.now(),
    readonly attemptsAtFanOut = true,
  ) {}

  /**
   * The events of the batch's fan-out messages, read together in one request before any is
   * handled (an attempt needs its event's body): none is read on its own then.
   */
  prefetchEvents(messages: readonly WebhookMessage[]): void {
    const refs = messages.filter((m): m is EventMessage => m.kind === 'event');
    if (refs.length === 0) return;
    const read = eventStore().getMany(refs);
    // A failed read is no failure of the batch: each attempt then reads its own event.
    read.catch(() => undefined);
    for (const r of refs)
      this.events.set(
        r.eventId,
        read.then(
          (found) => found.get(r.eventId),
          () => eventStore().get(r.eventId, r.merchantId),
        ),
      );
  }

  /** An event's body for an attempt: prefetched with the batch's, or read now. */
  eventOf(eventId: string, merchantId: string): Promise<ServiceEvent | undefined> {
    const prefetched = this.events.get(eventId);
    return prefetched
      ? prefetched.then((e) => (e?.merchantId === merchantId ? e : undefined))
      : eventStore().get(eventId, merchantId);
  }

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
   * invocation. Waits for one in turn (a released slot passes straight to the longest waiter)
   * up to SLOT_WAIT_MS of real time (a burst to one healthy endpoint goes through 4 at a
   * time); false after that (a slow endpoint's), or as soon as `stop` says so (looked at every
   * STOP_LOOK_MS): the message comes back a second later, or goes by the slow lane.
   */
  async take(endpointId: string, stop: () => boolean = () => false): Promise<'now' | 'waited' | false> {
    const n = this.inFlight.get(endpointId) ?? 0;
    if (n < PER_ENDPOINT_IN_FLIGHT) {
      this.inFlight.set(endpointId, n + 1);
      return 'now';
    }
    const waiters = this.waiting.get(endpointId) ?? [];
    this.waiting.set(endpointId, waiters);
    let grant!: (granted: boolean) => void;
    const granted = new Promise<boolean>((resolve) => (grant = resolve));
    waiters.push(grant);
    // Real time (withTimeout), not the clock's: the wait is on the endpoint's answers.
    for (let looks = 1; ; looks++) {
      const waitedMs = looks * STOP_LOOK_MS;
      if (await withTimeout(granted, STOP_LOOK_MS, () => false))
        return waitedMs > WAITED_MS ? 'waited' : 'now';
      if (waitedMs < SLOT_WAIT_MS && !stop()) continue;
      const i = waiters.indexOf(grant);
      if (i < 0) return 'waited'; // granted as it gave up: it holds the slot
      waiters.splice(i, 1);
      return false;
    }
  }

  /** The slot is given back: to the longest waiter, if any. */
  release(endpointId: string): void {
    const next = this.waiting.get(endpointId)?.shift();
    if (next) return next(true);
    const n = (this.inFlight.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, n);
  }
}

export const deliveryMessage = (
  d: Pick<WebhookDelivery, 'webhookEndpointId' | 'objectId' | 'sequence'>,
  lane?: 'slow',
): DeliveryMessage => ({
  kind: 'delivery',
  ...deliveryKeyOf(d),
  ...(lane && { lane }),
});

/** Whether the endpoint's deliveries go by the slow lane now (its attempts were slow lately). */
export const inSlowLane = (endpoint: WebhookEndpoint, nowMs: number): boolean =>
  endpoint.slowUntil !== undefined && Date.parse(endpoint.slowUntil) > nowMs;

/**
 * An attempt to `endpoint` is still unanswered after SLOW_ATTEMPT_MS: its deliveries go by the slow
 * lane for SLOW_LANE_MS from now. Written when the batch's view of it would end within half that
 * (so a slow endpoint's attempts do not each write it).
 */
export async function markSlow(endpoint: WebhookEndpoint, nowMs: number): Promise<void> {
  if (endpoint.slowUntil !== undefined && Date.parse(endpoint.slowUntil) > nowMs + SLOW_LANE_MS / 2) return;
  const until = iso(nowMs + SLOW_LANE_MS);
  endpoint.slowUntil = until;
  await webhookEndpointStore().markSlow(endpoint.merchantId, endpoint.webhookEndpointId, until);
}

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
