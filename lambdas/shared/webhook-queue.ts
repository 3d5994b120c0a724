/**
 * The webhook queue (docs/decisions.md "Webhooks"): the stream forwarder puts one `event` message
 * per new event on it; the delivery function fans each out to the merchant's endpoints (a
 * `delivery` message per delivery record it writes), sends deliveries, retries them with a delay
 * (a new `delivery` message), and works replays one page per `replay` message. A message carries
 * keys only: the table stays the truth, and a message handled twice does nothing twice.
 *
 * In the cloud the queue is SQS (WEBHOOK_QUEUE_URL); the local runtime installs its in-process
 * stand-in through `useWebhookQueue`.
 */
import { needed } from './config';
import { SqsQueue, type MessageQueue, type Queued } from './sqs-queue';

/** A new event to fan out. */
export interface EventMessage {
  kind: 'event';
  eventId: string;
  merchantId: string;
  objectId: string;
  sequence: number;
  type: string;
  createdAt: string;
}

/** A delivery to attempt (if it is due). */
export interface DeliveryMessage {
  kind: 'delivery';
  webhookEndpointId: string;
  objectId: string;
  sequence: number;
  /** On the slow lane's queue (its endpoint answers slowly): attempted there, never passed on. */
  lane?: 'slow';
}

/** The next page of a replay: the merchant's events from `since` (after `after`) until `until`. */
export interface ReplayMessage {
  kind: 'replay';
  webhookEndpointId: string;
  merchantId: string;
  since: string;
  until: string;
  /** The GSI1 sort key of the last event handled. */
  after?: string;
}

export type WebhookMessage = EventMessage | DeliveryMessage | ReplayMessage;
export type QueuedWebhookMessage = Queued<WebhookMessage>;

let queue: MessageQueue<WebhookMessage> | undefined;
let slowQueue: MessageQueue<WebhookMessage> | undefined;

export function webhookQueue(): MessageQueue<WebhookMessage> {
  queue ??= new SqsQueue<WebhookMessage>(() => needed('webhookQueueUrl'));
  return queue;
}

/**
 * The slow lane's queue: the deliveries of endpoints that answer slowly, read by invocations of
 * their own (contract/webhooks.ts WEBHOOK_DELIVERY). Only the delivery function sends to it.
 */
export function slowWebhookQueue(): MessageQueue<WebhookMessage> {
  slowQueue ??= new SqsQueue<WebhookMessage>(() => needed('webhookSlowQueueUrl'));
  return slowQueue;
}

/**
 * Test hook (and the local runtime's in-process queues): use these queues instead of SQS; without
 * `slow`, the slow lane's messages go to `q` too.
 */
export const useWebhookQueue = (
  q: MessageQueue<WebhookMessage> | undefined,
  slow?: MessageQueue<WebhookMessage>,
): void => {
  queue = q;
  slowQueue = slow ?? q;
};

const str = (v: unknown): v is string => typeof v === 'string' && v !== '';
const seq = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

/** A message body as the queue hands it back; throws on anything else (a poison message). */
export function parseWebhookMessage(body: string): WebhookMessage {
  const m = JSON.parse(body) as Record<string, unknown>;
  if (
    m.kind === 'event' &&
    str(m.eventId) &&
    str(m.merchantId) &&
    str(m.objectId) &&
    seq(m.sequence) &&
    str(m.type) &&
    str(m.createdAt)
  )
    return m as unknown as EventMessage;
  if (
    m.kind === 'delivery' &&
    str(m.webhookEndpointId) &&
    str(m.objectId) &&
    seq(m.sequence) &&
    (m.lane === undefined || m.lane === 'slow')
  )
    return m as unknown as DeliveryMessage;
  if (m.kind === 'replay' && str(m.webhookEndpointId) && str(m.merchantId) && str(m.since) && str(m.until))
    return m as unknown as ReplayMessage;
  throw new Error(`not a webhook message: ${body.slice(0, 200)}`);
}
