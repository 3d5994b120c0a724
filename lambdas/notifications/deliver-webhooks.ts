/**
 * The delivery function: consumes the webhook queue and its slow lane (docs/decisions.md
 * "Webhooks"), each at a bounded concurrency set by its event source. Each message is a new event to fan out, a delivery turn or a
 * replay page (core/webhook-delivery.ts); the messages they lead to (deliveries, retries with a
 * delay) are sent after the batch. A message whose handling broke (the table unreachable) is
 * reported failed: SQS hands it out again, and after maxReceiveCount moves it to the dead-letter
 * queue (alarmed); its delivery stays pending and the recovery enqueues it again. A message of the
 * batch that could not be sent needs nothing: its delivery is on the due index, for the recovery.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { Batch, emitMetric } from '#core/webhook-batch';
import { handleMessage } from '#core/webhook-delivery';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import {
  parseWebhookMessage,
  slowWebhookQueue,
  webhookQueue,
  type WebhookMessage,
} from '#shared/webhook-queue';

export const handler = taskHandler(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batch = new Batch();
  const failures: string[] = [];
  const messages = new Map<string, WebhookMessage>();
  for (const record of event.Records)
    try {
      messages.set(record.messageId, parseWebhookMessage(record.body));
    } catch {
      // Reported failed below, where it is parsed again.
    }
  batch.prefetchEvents([...messages.values()]);
  await mapLimit(event.Records, 10, async (record) => {
    try {
      await handleMessage(
        messages.get(record.messageId) ?? parseWebhookMessage(record.body),
        batch,
        Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1,
      );
    } catch (error) {
      logger.warn('webhook message broke; the queue hands it out again', { error });
      failures.push(record.messageId);
    } finally {
      logger.removeKeys(['webhookEndpointId', 'eventId']);
    }
  });
  // The slow lane's messages (deliveries of endpoints that answer slowly) on its own queue.
  const slow = (m: (typeof batch.messages)[number]) =>
    m.message.kind === 'delivery' && m.message.lane === 'slow';
  const slowOnes = batch.messages.filter(slow);
  const notQueued = [
    ...(await webhookQueue().send(batch.messages.filter((m) => !slow(m)))),
    ...(slowOnes.length > 0 ? await slowWebhookQueue().send(slowOnes) : []),
  ];
  if (notQueued.length > 0)
    logger.warn('webhook messages not enqueued; the recovery enqueues their deliveries', {
      notQueued: notQueued.length,
    });
  emitMetric(batch);
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
});
