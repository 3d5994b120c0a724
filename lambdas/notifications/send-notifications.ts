/**
 * The notifier: consumes the notifier's queue (one message per outbox item; the stream forwarder,
 * enqueue-outbox.ts, fills it) and sends each e-mail through SES, paced to EMAIL_SEND_RATE, at
 * least once (docs/decisions.md, "E-mail delivery: at least once"): every send of an outbox item
 * carries the item's id as its stable message id (MESSAGE_ID_HEADER), so a repeat can be told from
 * a new e-mail.
 *
 * - A message delivered twice sends one e-mail: the item is claimed (pending → sending) first;
 *   a delivery that meets a live claim of another asks to be delivered again later, so that an
 *   item whose sender died mid-send is taken over when the claim expires. A sender that died
 *   after SES accepted the message and before recording it makes that takeover a second send of
 *   the same message id: the one repeat the promise allows, rather than an e-mail never sent.
 * - A throttled, refused or not-ready e-mail goes back on the queue as a new message with a delay
 *   (core/outbox.ts says what counts as an attempt), and its original is deleted: SQS's receive count,
 *   which moves a message to the dead-letter queue, counts only deliveries that broke (the table
 *   unreachable, the notifier crashed), never throttles.
 * - A message whose retry could not be enqueued, or whose delivery broke, is reported failed: SQS
 *   hands it out again after the visibility timeout, and after maxReceiveCount moves it to the
 *   dead-letter queue (alarmed); its outbox item stays pending, found by the runbook.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { deliver } from '#core/outbox';
import { outboxQueue, parseOutboxMessage, type QueuedMessage } from '#shared/outbox-queue';

export const handler = taskHandler(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  const retries: { messageId: string; queued: QueuedMessage }[] = [];
  for (const record of event.Records) {
    try {
      const outcome = await deliver(parseOutboxMessage(record.body));
      if (!outcome.done)
        retries.push({
          messageId: record.messageId,
          queued: { message: outcome.retry, delaySeconds: outcome.delaySeconds },
        });
    } catch (error) {
      logger.warn('e-mail delivery broke; the queue hands the message out again', { error });
      failures.push(record.messageId);
    } finally {
      logger.removeKeys(['outboxId', 'kind', 'paymentGroupId']);
    }
  }
  if (retries.length > 0) {
    const notQueued = await outboxQueue().send(retries.map((r) => r.queued));
    for (const i of notQueued) failures.push(retries[i]!.messageId);
  }
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
});
