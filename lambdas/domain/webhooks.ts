/**
 * Webhooks (docs/decisions.md "Webhooks"): endpoints and deliveries as records, their views, the
 * secret's form, the signature (Standard Webhooks, through its own library), the retry schedule,
 * what an answer means, and the failing-endpoint breaker. Plain rules, no AWS.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EventType } from '#contract/events';
import type { WebhookDeliveryView, WebhookEndpointView } from '#contract/schemas/webhooks';
import {
  BREAKER_THRESHOLD,
  DELIVERY_RETENTION_DAYS,
  RETRY_DELAYS_SECONDS,
  ROTATION_OVERLAP_HOURS,
  WEBHOOK_FAILURES_METRIC,
  WEBHOOK_SECRET_BYTES,
  WEBHOOK_SECRET_PREFIX,
} from '#contract/webhooks';
import { countMetricLine } from './metrics';

export type EndpointStatus = 'enabled' | 'disabled';

/** A webhook endpoint as stored. Secrets are sealed (shared/secret-box.ts), never plain. */
export interface WebhookEndpoint {
  webhookEndpointId: string;
  merchantId: string;
  url: string;
  enabledEvents: string[];
  description: string;
  status: EndpointStatus;
  /** Set when the service disabled it (410 Gone). */
  disabledReason?: string;
  dateCreated: string;
  lastUpdated: string;
  /** Moves on with every change the merchant makes: updates hold only on the revision read. */
  revision: number;
  secret: string;
  /** The secret before the last rotation, signing beside the new one until `previousSecretUntil`. */
  previousSecret?: string;
  previousSecretUntil?: string;
  /** The keyed rotation that made `secret` (its Idempotency-Key's resource id): a resumed retry does not rotate twice. */
  rotationId?: string;
  /** Attempts in a row that failed (the breaker; reset by any 2xx). */
  failures?: number;
  /** While the breaker is open: no attempt before this time, then one probe at a time. */
  retryAfter?: string;
  /** Until then its deliveries go by the slow lane (an attempt took longer than SLOW_ATTEMPT_MS). */
  slowUntil?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event on its way to one endpoint (or delivered, or given up). */
export interface WebhookDelivery {
  webhookEndpointId: string;
  merchantId: string;
  eventId: string;
  type: EventType;
  objectId: string;
  sequence: number;
  /** The event's time. */
  createdAt: string;
  status: DeliveryStatus;
  /** HTTP attempts made (since the last replay). */
  attempts: number;
  /**
   * Turns taken: attempts, and turns skipped while the endpoint's breaker was open (each change of
   * a delivery holds on the round it read). The retry schedule follows `attempts`.
   */
  round: number;
  /** When its schedule began: the fan-out, or the last replay (absent on older records: `createdAt`). */
  startedAt?: string;
  lastStatusCode?: number;
  lastError?: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  /** While an attempt is being made: no other attempt before this time. */
  leaseUntil?: string;
  /** When the sweeper treats the delivery's queue message as lost and enqueues another (pending only). */
  checkAt?: string;
  replays?: number;
}

/** What of an event a delivery records. */
interface DeliveredEvent {
  id: string;
  type: EventType;
  objectId: string;
  sequence: number;
  createdAt: string;
}

/**
 * A pending delivery of an event to an endpoint, its schedule begun at `now` (a replay's);
 * `checkAt`: when it counts as lost.
 */
export const pendingDelivery = (
  webhookEndpointId: string,
  merchantId: string,
  event: DeliveredEvent,
  now: Date,
  checkAt: string,
): WebhookDelivery => ({
  webhookEndpointId,
  merchantId,
  eventId: event.id,
  type: event.type,
  objectId: event.objectId,
  sequence: event.sequence,
  createdAt: event.createdAt,
  status: 'pending',
  attempts: 0,
  round: 0,
  startedAt: now.toISOString(),
  nextAttemptAt: now.toISOString(),
  checkAt,
});

/** The key of a delivery, as its queue message carries it. */
export interface DeliveryKey {
  webhookEndpointId: string;
  objectId: string;
  sequence: number;
}

export const deliveryKeyOf = (d: DeliveryKey): DeliveryKey => ({
  webhookEndpointId: d.webhookEndpointId,
  objectId: d.objectId,
  sequence: d.sequence,
});

/** A new secret: `whsec_` and the base64 of 32 bytes from the system's cryptographic source. */
export const newSecret = (random: (n: number) => Buffer = randomBytes): string =>
  `${WEBHOOK_SECRET_PREFIX}${random(WEBHOOK_SECRET_BYTES).toString('base64')}`;

export const endpointView = (e: WebhookEndpoint): WebhookEndpointView => ({
  webhookEndpointId: e.webhookEndpointId,
  url: e.url,
  enabledEvents: e.enabledEvents,
  description: e.description,
  status: e.status,
  ...(e.disabledReason !== undefined && { disabledReason: e.disabledReason }),
  dateCreated: e.dateCreated,
  lastUpdated: e.lastUpdated,
});

export const deliveryView = (d: WebhookDelivery): WebhookDeliveryView => ({
  eventId: d.eventId,
  type: d.type,
  objectId: d.objectId,
  sequence: d.sequence,
  createdAt: d.createdAt,
  status: d.status,
  attempts: d.attempts,
  ...(d.lastStatusCode !== undefined && { lastStatusCode: d.lastStatusCode }),
  ...(d.lastError !== undefined && { lastError: d.lastError }),
  ...(d.lastAttemptAt !== undefined && { lastAttemptAt: d.lastAttemptAt }),
  ...(d.status === 'pending' && d.nextAttemptAt !== undefined && { nextAttemptAt: d.nextAttemptAt }),
});

/** True when the endpoint receives this event: enabled, existing when it was created, subscribed. */
export function receives(
  e: Pick<WebhookEndpoint, 'status' | 'dateCreated' | 'enabledEvents'>,
  event: { type: string; createdAt: string },
  eventEnabled: (type: string, patterns: readonly string[]) => boolean,
): boolean {
  return (
    e.status === 'enabled' && e.dateCreated <= event.createdAt && eventEnabled(event.type, e.enabledEvents)
  );
}

/** The previous secret's end after a rotation at `now`. */
export const previousSecretUntil = (now: Date): string =>
  new Date(now.getTime() + ROTATION_OVERLAP_HOURS * 3_600_000).toISOString();

/**
 * The `webhook-signature` header: one `v1,<base64>` entry per secret, separated by a space,
 * each made by the standardwebhooks library (HMAC-SHA256 of `{id}.{timestamp}.{body}`).
 */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

/** The Standard Webhooks headers of one attempt. */
export function webhookHeaders(secrets: readonly string[], id: string, at: Date, body: string) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, id, at, body),
  };
}

/** What an attempt's answer means. */
type AttemptOutcome = 'delivered' | 'gone' | 'retry';

export const outcomeOf = (status: number | undefined): AttemptOutcome =>
  status === undefined
    ? 'retry'
    : status >= 200 && status < 300
      ? 'delivered'
      : status === 410
        ? 'gone'
        : 'retry';

/**
 * The wait before the next attempt after `attempts` failed attempts (1 after the first), in
 * seconds, or undefined when the schedule is spent. `scale` (WEBHOOK_RETRY_SCALE, 1 in the cloud) shortens it
 * for tests. Waits from 5 minutes on are spread by up to 10%.
 */
export function retryDelaySeconds(
  attempts: number,
  scale = 1,
  random: () => number = Math.random,
): number | undefined {
  const base = RETRY_DELAYS_SECONDS[attempts - 1];
  if (base === undefined) return undefined;
  const spread = base >= 300 ? 1 + random() * 0.1 : 1;
  return base * spread * scale;
}

/** The delivery's give-up sentence after the schedule is spent. */
export const RETRIES_SPENT = `retried ${RETRY_DELAYS_SECONDS.length} times over more than 24 hours`;

/** The schedule's whole span (27 h 35 min; scaled like it): no delivery is pending longer. */
export const scheduleSpanMs = (scale = 1): number =>
  RETRY_DELAYS_SECONDS.reduce((sum, s) => sum + s, 0) * 1000 * scale;

/** The give-up sentence of a delivery whose span ran out while the breaker skipped its turns. */
export const SPAN_SPENT = 'tried for more than 24 hours (turns skipped while the endpoint kept failing)';

/**
 * The breaker (docs/decisions.md "A failing endpoint does not hold up the others"): after
 * BREAKER_THRESHOLD failed attempts in a row, an endpoint gets no attempt until `retryAfter`,
 * 10 s doubling to 5 minutes (scaled like the schedule); then one probe at a time.
 */
export function breakerRetryAfter(failures: number, now: Date, scale = 1): string | undefined {
  if (failures < BREAKER_THRESHOLD) return undefined;
  const seconds = Math.min(300, 10 * 2 ** (failures - BREAKER_THRESHOLD)) * scale;
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

/** When a delivery record expires: its event's retention, from the later of the event and now. */
export const deliveryExpiry = (createdAt: string, now: Date): number =>
  Math.floor(Math.max(Date.parse(createdAt), now.getTime()) / 1000) + DELIVERY_RETENTION_DAYS * 86_400;

/** The delivery function's failed attempts as one CloudWatch embedded-metric log line. */
export const failedAttemptsMetricLine = (count: number, stage: string, at: Date): string =>
  countMetricLine(WEBHOOK_FAILURES_METRIC, count, stage, at);
