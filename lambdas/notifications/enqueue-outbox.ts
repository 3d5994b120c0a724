/**
 * The stream forwarder: consumes the table's stream (new outbox and event items only; CDK filters
 * the rest out) and puts one message per new outbox item on the notifier's queue, where the
 * notifier takes them at the e-mail rate (docs/decisions.md, "E-mail pacing"), and one message per
 * new event on the webhook queue, where the delivery function fans it out to the merchant's
 * endpoints (docs/decisions.md, "Webhooks"). It never sends e-mail or webhooks itself, so a burst
 * of 100,000 receipts or events passes the stream in seconds and waits in the queues, not in the
 * stream.
 *
 * A record whose message was not enqueued is reported as failed, and the stream delivers it
 * again (Lambda retries; locally the stream reader does): the intent is never dropped. A record
 * enqueued twice is harmless: the notifier claims the item before sending, and the fan-out writes
 * each delivery once.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { outboxQueue } from '#shared/outbox-queue';
import { webhookQueue, type EventMessage } from '#shared/webhook-queue';

type Image = NonNullable<NonNullable<DynamoDBStreamEvent['Records'][number]['dynamodb']>['NewImage']>;

/** The fan-out's message of a new event item, or undefined when the image is not one. */
function eventMessage(image: Image): EventMessage | undefined {
  const s = (name: string) => image[name]?.S;
  const sequence = Number(image.sequence?.N);
  const [eventId, merchantId, objectId, type, createdAt] = [
    'id',
    'merchantId',
    'objectId',
    'type',
    'createdAt',
  ].map(s);
  if (!eventId || !merchantId || !objectId || !type || !createdAt || !Number.isSafeInteger(sequence))
    return undefined;
  return { kind: 'event', eventId, merchantId, objectId, sequence, type, createdAt };
}

export const handler = taskHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const outbox: { outboxId: string; sequence: string }[] = [];
  const events: { message: EventMessage; sequence: string }[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const sequence = record.dynamodb!.SequenceNumber!;
    if (image.entity?.S === 'outbox' && image.outboxId?.S)
      outbox.push({ outboxId: image.outboxId.S, sequence });
    if (image.entity?.S === 'event') {
      const message = eventMessage(image);
      if (message) events.push({ message, sequence });
    }
  }
  const failed: string[] = [];
  if (outbox.length > 0) {
    const notQueued = await outboxQueue().send(
      outbox.map(({ outboxId }) => ({ message: { outboxId, notReady: 0 }, delaySeconds: 0 })),
    );
    if (notQueued.length > 0)
      logger.warn('outbox items not enqueued; the stream delivers them again', { notQueued });
    failed.push(...notQueued.map((i) => outbox[i]!.sequence));
  }
  if (events.length > 0) {
    const notQueued = await webhookQueue().send(events.map(({ message }) => ({ message, delaySeconds: 0 })));
    if (notQueued.length > 0)
      logger.warn('events not enqueued; the stream delivers them again', { notQueued });
    failed.push(...notQueued.map((i) => events[i]!.sequence));
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});
