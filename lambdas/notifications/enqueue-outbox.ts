/**
 * The stream forwarder: consumes the table's stream (new outbox items only; CDK filters the rest
 * out) and puts one message per item on the notifier's queue, where the notifier takes them at
 * the e-mail rate (docs/decisions.md, "E-mail pacing"). It never sends e-mail itself, so a burst
 * of 100,000 receipts passes the stream in seconds and waits in the queue, not in the stream.
 *
 * A record whose message was not enqueued is reported as failed, and the stream delivers it
 * again (Lambda retries; locally the stream reader does): the e-mail's intent is never dropped.
 * A record enqueued twice is harmless: the notifier claims the item before sending.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { outboxQueue } from '#shared/outbox-queue';

export const handler = taskHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const records = event.Records.flatMap((record) => {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.entity?.S !== 'outbox' || !image.outboxId?.S) return [];
    return [{ outboxId: image.outboxId.S, sequence: record.dynamodb!.SequenceNumber! }];
  });
  if (records.length === 0) return { batchItemFailures: [] };
  const failed = await outboxQueue().send(
    records.map(({ outboxId }) => ({ message: { outboxId, notReady: 0 }, delaySeconds: 0 })),
  );
  if (failed.length > 0) logger.warn('outbox items not enqueued; the stream delivers them again', { failed });
  return { batchItemFailures: failed.map((i) => ({ itemIdentifier: records[i]!.sequence })) };
});
