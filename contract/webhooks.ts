/**
 * Webhooks (docs/decisions.md "Webhooks"): the numbers and names the functions, the local runtime,
 * the infrastructure and the document agree on. Endpoints receive the events of contract/events.ts
 * signed as Standard Webhooks 1.0 describes.
 */

/** Endpoints a merchant may have (a conditional counter keeps it under concurrent creates). */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/** A secret is this prefix and the base64 of SECRET_BYTES random bytes (Standard Webhooks). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_SECRET_BYTES = 32;

/** How long the previous secret keeps signing beside the new one after a rotation. */
export const ROTATION_OVERLAP_HOURS = 24;

/**
 * Waits between the attempts of one delivery, in seconds: the first retry 5 s after the first
 * attempt, then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts over 27 h 35 min, the
 * schedule Svix documents for Standard Webhooks). After the last the delivery is `failed`.
 * Waits from 5 minutes on are spread by up to 10% so that retries of one outage do not arrive
 * at once.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** A delivery attempt ends after this long (connection, request and response together). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Of a receiver's response body at most this much is read (and thrown away). */
export const MAX_RESPONSE_BYTES_READ = 4096;

/** Delivery records are kept this long (TTL), as events are. */
export const DELIVERY_RETENTION_DAYS = 30;

/** An endpoint whose last attempts all failed is tried by one probe at a time (docs/decisions.md). */
export const BREAKER_THRESHOLD = 5;

/**
 * The delivery function's event sources, as the cloud stack (lib/cdk/webhooks.ts) and the local
 * runtime (lib/local/webhooks.ts) both set them. Two queues: the webhook queue, read by
 * `concurrency` invocations at once (the stack's `webhookConcurrency` context value, else
 * `prodConcurrency` in prod; the local runtime's LOCAL_WEBHOOK_CONCURRENCY, fewer on a 2-core machine), and the slow lane, read by
 * `slowConcurrency`, where the deliveries of an endpoint that answers slowly go (SLOW_ATTEMPT_MS),
 * so that its attempts never hold the invocations every other endpoint's deliveries need. The
 * function's reserved concurrency is both, plus `reserveHeadroom`, so that neither source is
 * throttled.
 */
export const WEBHOOK_DELIVERY = {
  batchSize: 10,
  concurrency: 10,
  /**
   * Prod's default: the busiest slot (docs/operating.md "The busiest slot", its webhooks) needs 25
   * for its last webhook within 5 minutes of its last answer and 33 to keep pace (a payment's
   * webhook within 10 s of its answer at p99); at 10 the last came 36 minutes late.
   */
  prodConcurrency: 40,
  slowConcurrency: 2,
  reserveHeadroom: 2,
  /** The function's timeout: a batch of 10 attempts at once, each at most 10 s, with the writes around them. */
  timeoutSeconds: 60,
  /** Receives of a message before it goes to the dead-letter queue. */
  maxReceiveCount: 5,
} as const;

/**
 * An attempt not answered this long after it began puts its endpoint in the slow lane (for
 * SLOW_LANE_MS after its last such attempt): a healthy receiver answers in milliseconds.
 */
export const SLOW_ATTEMPT_MS = 1000;
export const SLOW_LANE_MS = 5 * 60_000;

/** The queue consumer that fans events out to endpoints and delivers them. */
export const WEBHOOK_DELIVERY_HANDLER = 'notifications/deliver-webhooks';
/** Every WEBHOOK_RECOVERY_INTERVAL_MINUTES: re-enqueues deliveries that are due and whose message is lost. */
export const WEBHOOK_RECOVERY_HANDLER = 'scheduled/recover-webhook-deliveries';
export const WEBHOOK_RECOVERY_INTERVAL_MINUTES = 1;

/**
 * The delivery function's metric (CloudWatch embedded metric format): attempts that failed (any
 * answer but a 2xx, a timeout, a refused connection). The alarm `webhook-deliveries-failing`
 * fires when every 5 minutes of an hour had one.
 */
export const WEBHOOK_FAILURES_METRIC = {
  namespace: 'ScheduledPayments',
  name: 'WebhookAttemptsFailed',
  dimension: 'Stage',
} as const;
