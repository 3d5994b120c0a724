/**
 * Local SQS for the notifier's and the webhook queues: an in-process queue with SQS's semantics as the notifier
 * meets them, and a poller that hands it to the notifier as real `SQSEvent`s, the way a Lambda
 * event source mapping with a maximum concurrency does:
 *
 * - a message is invisible until its delay has passed (DelaySeconds), then received in batches
 *   of up to `batchSize` by at most `concurrency` invocations at once;
 * - a message the handler reports failed (or all of them, when it throws) is handed out again
 *   after the visibility timeout, and after `maxReceiveCount` receives goes to the dead-letter
 *   list (`GET /__local/dlq`, like the stream's on-failure destination);
 * - the others are deleted.
 *
 * The notifier's own pacing (EMAIL_SEND_RATE) applies unchanged: its invocations share this
 * process, so the runtime runs them as one container (EMAIL_SEND_CONCURRENCY=1).
 * The queue itself is lib/local/local-queue.ts.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sleep } from '../../lambdas/shared/clock';
import { invokeAs } from './http-server';
import type { DeadLetter } from './dead-letters';
import { LocalQueue, type Message } from './local-queue';

export { LocalQueue };

type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

interface LocalQueueOptions {
  /** The function's name in its invocation context (logs). */
  name?: string;
  batchSize: number;
  concurrency: number;
  /** Seconds; the cloud queue's is 360 (6 × the notifier's timeout), locally 60 (its timeout). */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

const queueArn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:local-${name}`;

const toRecord = (m: Message, arn: string): SQSRecord => ({
  messageId: m.id,
  receiptHandle: m.id,
  body: m.body,
  attributes: {
    ApproximateReceiveCount: String(m.receiveCount),
    SentTimestamp: String(m.sentAt),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: arn,
  awsRegion: 'us-east-1',
});

/** Polls `queue` and invokes `handler`; `stop()` ends the pollers after their current batch. */
export function startQueuePoller<M>(
  queue: LocalQueue<M>,
  handler: QueueHandler,
  options: LocalQueueOptions,
  deadLetters: DeadLetter[],
) {
  let running = true;
  const visibilityMs = options.visibilityTimeoutSeconds * 1000;

  const invoke = async (batch: Message[]) => {
    let failed: Set<string>;
    let reason = 'reported as failed by the handler';
    try {
      const result = await invokeAs(options.name ?? 'Notifier', 60_000, (context) =>
        handler({ Records: batch.map((m) => toRecord(m, queueArn(queue.name))) }, context),
      );
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      failed = new Set(batch.map((m) => m.id));
      reason = (error as Error).message;
    }
    for (const message of batch) {
      if (!failed.has(message.id)) queue.delete(message.id);
      else if (message.receiveCount >= options.maxReceiveCount) {
        queue.delete(message.id);
        deadLetters.push({ at: new Date().toISOString(), messageId: message.id, body: message.body, reason });
        console.error(`local queue: message ${message.body} sent to the dead-letter list: ${reason}`);
      }
    }
  };

  const worker = async () => {
    while (running) {
      const batch = queue.receive(options.batchSize, visibilityMs);
      if (batch.length === 0) {
        await sleep(100);
        continue;
      }
      await invoke(batch);
    }
  };
  const workers = Array.from({ length: options.concurrency }, () =>
    worker().catch((error: unknown) => console.error('local queue poller failed', error)),
  );
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}
