/**
 * The one way a function puts messages on an SQS queue: batches of 10 (SQS's limit), delays
 * clamped to SQS's 0-900 seconds, and the indexes of the messages not enqueued answered rather
 * than thrown, so that a caller can report exactly those as failed. The local runtime replaces a
 * queue with its in-process stand-in (lib/local/queue.ts) through each queue's `use...` hook.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClient } from './tracer';

export interface Queued<M> {
  message: M;
  /** 0 to 900 (SQS's bound). */
  delaySeconds: number;
}

export interface MessageQueue<M> {
  /** Enqueues the messages; resolves to the indexes of those that were not enqueued. */
  send(messages: Queued<M>[]): Promise<number[]>;
}

/** SQS takes at most 10 messages per batch and delays of at most 15 minutes. */
const SQS_BATCH = 10;
export const MAX_DELAY_SECONDS = 900;

let client: SQSClient | undefined;
const sqs = (): SQSClient => (client ??= awsClient(new SQSClient({ maxAttempts: 3 })));

export class SqsQueue<M> implements MessageQueue<M> {
  constructor(private readonly url: () => string) {}

  async send(messages: Queued<M>[]): Promise<number[]> {
    const failed: number[] = [];
    const url = this.url();
    for (let start = 0; start < messages.length; start += SQS_BATCH) {
      const chunk = messages.slice(start, start + SQS_BATCH);
      try {
        const out = await sqs().send(
          new SendMessageBatchCommand({
            QueueUrl: url,
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
