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
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { needed } from '#shared/config';
import { tracer } from '#shared/tracer';

export interface OutboxMessage {
  outboxId: string;
  /** Deliveries of this e-mail that found it not ready to send (throttled, claimed, uncommitted). */
  notReady: number;
}

export interface QueuedMessage {
  message: OutboxMessage;
  /** 0 to 900 (SQS's bound). */
  delaySeconds: number;
}

export interface OutboxQueue {
  /** Enqueues the messages; resolves to the indexes of those that were not enqueued. */
  send(messages: QueuedMessage[]): Promise<number[]>;
}

/** SQS takes at most 10 messages per batch and delays of at most 15 minutes. */
const SQS_BATCH = 10;
export const MAX_DELAY_SECONDS = 900;

class SqsOutboxQueue implements OutboxQueue {
  private readonly client = tracer.captureAWSv3Client(new SQSClient({ maxAttempts: 3 }));
  private readonly url = needed('notificationQueueUrl');

  async send(messages: QueuedMessage[]): Promise<number[]> {
    const failed: number[] = [];
    for (let start = 0; start < messages.length; start += SQS_BATCH) {
      const chunk = messages.slice(start, start + SQS_BATCH);
      try {
        const out = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.url,
            Entries: chunk.map((m, i) => ({
              Id: String(start + i),
              MessageBody: JSON.stringify(m.message),
              DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(m.delaySeconds))),
            })),
          }),
        );
        failed.push(...(out.Failed ?? []).map((f) => Number(f.Id)));
      } catch {
        failed.push(...chunk.map((_m, i) => start + i));
      }
    }
    return failed;
  }
}

let queue: OutboxQueue | undefined;

export function outboxQueue(): OutboxQueue {
  queue ??= new SqsOutboxQueue();
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
