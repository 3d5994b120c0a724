/**
 * The notifier's queue (docs/decisions.md, "E-mail pacing: a queue, a rate, and what counts as an
 * attempt"): the stream forwarder puts one message per new outbox item on it, the notifier
 * consumes it at a bounded concurrency, and a throttled (or not yet ready) e-mail goes back on it
 * as a new message with a delay. A message carries only the item's id and how many times it was
 * not ready; the outbox item in the table stays the truth about the e-mail.
 *
 * In the cloud the queue is SQS (NOTIFICATION_QUEUE_URL); the local runtime installs its
 * in-process stand-in through `useOutboxQueue`.
 */
import { needed } from '#shared/config';
import { MAX_DELAY_SECONDS, SqsQueue, type MessageQueue, type Queued } from './sqs-queue';

export { MAX_DELAY_SECONDS };

export interface OutboxMessage {
  outboxId: string;
  /** Deliveries of this e-mail that found it not ready to send (throttled, claimed, uncommitted). */
  notReady: number;
}

export type QueuedMessage = Queued<OutboxMessage>;

type OutboxQueue = MessageQueue<OutboxMessage>;

let queue: OutboxQueue | undefined;

export function outboxQueue(): OutboxQueue {
  queue ??= new SqsQueue<OutboxMessage>(() => needed('notificationQueueUrl'));
  return queue;
}

/** Test hook (and the local runtime's in-process queue): use this queue instead of SQS. */
export const useOutboxQueue = (q: OutboxQueue | undefined): void => {
  queue = q;
};

/** A message body as the queue hands it back; throws on anything else (a poison message). */
export function parseOutboxMessage(body: string): OutboxMessage {
  const parsed = JSON.parse(body) as Partial<OutboxMessage>;
  if (typeof parsed.outboxId !== 'string' || parsed.outboxId === '')
    throw new Error(`not an outbox message: ${body.slice(0, 200)}`);
  const notReady = Number.isSafeInteger(parsed.notReady) ? Math.max(0, parsed.notReady!) : 0;
  return { outboxId: parsed.outboxId, notReady };
}
