/**
 * The notifier: consumes the table's stream (new outbox items only; CDK filters the rest out)
 * and sends each e-mail through SES, at least once (docs/decisions.md, "E-mail delivery: at least
 * once"): every send of an outbox item carries the item's id as its stable message id
 * (MESSAGE_ID_HEADER), so a repeat can be told from a new e-mail.
 *
 * - A record delivered twice sends one e-mail: the item is claimed (pending → sending) first;
 *   a delivery that meets a live claim of another asks to be delivered again later, so that an
 *   item whose sender died mid-send is taken over when the claim expires. A sender that died
 *   after SES accepted the message and before recording it makes that takeover a second send of
 *   the same message id: the one repeat the promise allows, rather than an e-mail never sent.
 * - A failing or throttled send puts the item back to pending and reports the record as failed,
 *   so the stream delivers it again (Lambda retries; locally the stream reader does); after
 *   MAX_SEND_ATTEMPTS the item is marked `failed`: visible in the table, never silently dropped.
 * - A notice whose group is not committed is not ready: a >99-payment create writes its group
 *   ahead as `creating` (invisible to getGroup) and commits it last; the record is delivered again
 *   until the group is `pending`, and given up after COMMIT_GRACE_MS (the create failed or died;
 *   it deletes its notices itself, or the sweep of abandoned creates does).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { renderEmail } from '#domain/notifications';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { emailSender } from '#shared/mailer';
import { taskHandler } from '#shared/task';
import { groupStore } from '#store/groups';
import { outboxStore } from '#store/outbox';

/** How long a notice may wait for its group to commit before it is given up. */
const COMMIT_GRACE_MS = 5 * 60 * 1000;

class NotReadyError extends Error {}

async function deliver(outboxId: string): Promise<void> {
  const store = outboxStore();
  const now = new Date();
  const claim = await store.claim(outboxId, now);
  if (!('item' in claim)) {
    // Sent, failed or gone: done. Held by another delivery: ask for this record again later, in
    // case that delivery dies before finishing (its claim then expires and this one takes over).
    if (claim.status === 'sending')
      throw new NotReadyError(`outbox item ${outboxId} is being sent by another delivery`);
    return;
  }
  const { item } = claim;
  logger.appendKeys({ outboxId, kind: item.kind, paymentGroupId: item.paymentGroupId });

  if (!(await groupStore().getGroup(item.paymentGroupId))) {
    if (now.getTime() - Date.parse(item.createdAt) < COMMIT_GRACE_MS) {
      await store.release(outboxId, 'group not committed yet', false);
      throw new NotReadyError(`group ${item.paymentGroupId} not committed yet`);
    }
    await store.markFailed(outboxId, 'the group was never committed; nothing to notify');
    return;
  }

  let messageId: string;
  try {
    ({ messageId } = await emailSender().send(item.recipient, renderEmail(item), item.outboxId));
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (item.attempts + 1 >= config().maxSendAttempts) {
      await store.markFailed(outboxId, reason);
      logger.error('e-mail failed for good; outbox item marked failed', {
        attempts: item.attempts + 1,
        reason,
      });
      return;
    }
    await store.release(outboxId, reason, true);
    throw error;
  }
  // Sent: recording it is retried; if it still fails, the item stays claimed ("sending") and is
  // logged rather than released, so no delivery re-sends it before the claim expires.
  for (let attempt = 1; ; attempt++) {
    try {
      await store.markSent(outboxId, messageId, new Date());
      logger.info('e-mail sent', { messageId });
      return;
    } catch (error) {
      if (attempt >= 3) {
        logger.error('e-mail sent but not recorded; outbox item left in "sending"', { messageId, error });
        return;
      }
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}

export const handler = taskHandler(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.entity?.S !== 'outbox' || !image.outboxId?.S) continue;
    try {
      await deliver(image.outboxId.S);
    } catch (error) {
      if (!(error instanceof NotReadyError)) logger.warn('e-mail not sent; will be retried', { error });
      batchItemFailures.push({ itemIdentifier: record.dynamodb!.SequenceNumber! });
    }
  }
  return { batchItemFailures };
});
