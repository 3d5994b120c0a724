/**
 * One delivery of one outbox item: claim it, check its group, send it at this container's pace,
 * and record what happened. What counts (docs/decisions.md, "E-mail pacing"):
 *
 * - sent: `attempts` + 1, the item `sent`;
 * - refused (SES answered with an error: a rejected message, a bad address, an unreachable SES):
 *   `attempts` + 1; retried after a delay until MAX_SEND_ATTEMPTS, then `failed` with the reason;
 * - throttled (SES: maximum sending rate exceeded, and the like; `isThrottle`): `throttles` + 1,
 *   no attempt; retried after a growing delay, and only after MAX_NOT_READY_RETRIES of them is the
 *   item given up as `stuck` (never `failed`), for the runbook (`npm run admin -- outbox`);
 * - not ready (the group is not committed yet; another delivery holds a live claim): nothing
 *   counted; retried like a throttle.
 */
import { renderEmail } from '#domain/notifications';
import { backoffDelay, withBackoff } from '#shared/backoff';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { emailSender, isThrottle } from '#shared/mailer';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import { outboxStore } from '#store/outbox';
import { Pacer } from '#shared/pacer';
import { MAX_DELAY_SECONDS, type OutboxMessage } from '#shared/outbox-queue';
import { clock } from '#shared/clock';

/** How long a notice may wait for its group to commit before it is given up. */
const COMMIT_GRACE_MS = 5 * 60 * 1000;
/** How long a throttle holds this container's next send back (SES's budget is per second). */
const THROTTLE_HOLD_MS = 250;

/** Done with the item, or the message to put back on the queue (with its delay). */
type Outcome = { done: true } | { done: false; retry: OutboxMessage; delaySeconds: number };
const DONE: Outcome = { done: true };

let pacer: Pacer | undefined;
const pace = (): Pacer => (pacer ??= Pacer.of(config().emailSendRate, config().emailSendConcurrency));

/** Exponential, from 1 s to the cap, with jitter (half to all of it) so that retries spread out. */
export function backoffSeconds(retry: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_SECONDS, config().emailRetryMaxDelaySeconds);
  const ms = backoffDelay(Math.max(1, retry), { firstMs: 1000, maxMs: cap * 1000, jitter: 'half' }, random);
  return Math.max(1, Math.round(ms / 1000));
}

const reasonOf = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** Not ready (or throttled) once more: retried after a delay, unless the retries are spent. */
function notReady(message: OutboxMessage, why: string): Outcome | 'spent' {
  const retries = message.notReady + 1;
  if (retries > config().maxNotReadyRetries) return 'spent';
  logger.info('e-mail not sent now; will be retried', { why, retries });
  return { done: false, retry: { ...message, notReady: retries }, delaySeconds: backoffSeconds(retries) };
}

export async function deliver(message: OutboxMessage): Promise<Outcome> {
  const { outboxId } = message;
  const store = outboxStore();
  const now = clock.now();
  const claim = await store.claim(outboxId, now);
  if (!('item' in claim)) {
    // Sent, failed, stuck or gone: done. Held by another delivery: ask again later, in case that
    // delivery dies before finishing (its claim then expires and this one takes over).
    if (claim.status !== 'sending') return DONE;
    const outcome = notReady(message, 'being sent by another delivery');
    if (outcome !== 'spent') return outcome;
    logger.error('outbox item left "sending" by a delivery that never finished', { outboxId });
    return DONE;
  }
  const { item } = claim;
  logger.appendKeys({ outboxId, kind: item.kind, paymentGroupId: item.paymentGroupId });

  // A payment's e-mail waits for its group's commit; a method's was written with its change.
  const group =
    item.paymentGroupId === undefined ? undefined : await groupStore().getGroup(item.paymentGroupId);
  if (item.paymentGroupId !== undefined && !group) {
    if (now.getTime() - Date.parse(item.createdAt) >= COMMIT_GRACE_MS) {
      await store.markFailed(outboxId, 'the group was never committed; nothing to notify');
      return DONE;
    }
    const outcome = notReady(message, 'group not committed yet');
    if (outcome === 'spent') {
      await store.markStuck(outboxId, 'the group was not committed in time', 'not-ready');
      return DONE;
    }
    await store.release(outboxId, 'group not committed yet', 'not-ready');
    return outcome;
  }

  let email = item;
  // A payment-scheduled notice still waiting when its group or payment was deleted: the payment
  // will not be charged, so the payor is not told it will be. Otherwise it names the slot and the
  // amount as they are now (the group rescheduled or the payment changed while it waited).
  if (item.kind === 'payment-scheduled' && group) {
    const payment =
      group.status === 'deleted'
        ? undefined
        : await paymentStore().getPayment(group.paymentGroupId, item.data.paymentId);
    // A payment missing from its committed group was never written: a notice left by a create
    // that died half-way, its group created again by the retry under the same id.
    const gone =
      group.status === 'deleted'
        ? 'its group was deleted'
        : payment === undefined
          ? 'its payment was never written'
          : payment.deleted
            ? 'its payment was deleted'
            : undefined;
    if (gone) {
      logger.info('payment-scheduled notice not sent', { reason: gone });
      await store.markFailed(outboxId, `${gone} before the notice went out; nothing to notify`);
      return DONE;
    }
    const { scheduleDate, scheduleHour } = group;
    const amountCents = payment!.amountCents;
    email = { ...item, data: { ...item.data, scheduleDate, scheduleHour, amountCents } };
  }

  let messageId: string;
  await pace().take();
  try {
    ({ messageId } = await emailSender().send(item.recipient, renderEmail(email), item.outboxId));
  } catch (error) {
    return failedSend(message, item.attempts, error);
  }
  // Sent: recording it is retried; if it still fails, the item stays claimed ("sending") and is
  // logged rather than released, so no delivery re-sends it before the claim expires.
  try {
    await withBackoff(() => store.markSent(outboxId, messageId, clock.now()), { attempts: 3, firstMs: 200 });
    logger.info('e-mail sent', { messageId });
  } catch (error) {
    logger.error('e-mail sent but not recorded; outbox item left in "sending"', { messageId, error });
  }
  return DONE;
}

async function failedSend(message: OutboxMessage, attempts: number, error: unknown): Promise<Outcome> {
  const store = outboxStore();
  const { outboxId } = message;
  const reason = reasonOf(error);
  if (isThrottle(error)) {
    pace().holdBack(THROTTLE_HOLD_MS);
    const outcome = notReady(message, reason);
    if (outcome !== 'spent') {
      await store.release(outboxId, reason, 'throttled');
      return outcome;
    }
    await store.markStuck(outboxId, `throttled ${message.notReady + 1} times; last: ${reason}`, 'throttled');
    logger.error('e-mail throttled past its retries; outbox item marked stuck', { reason });
    return DONE;
  }
  if (attempts + 1 >= config().maxSendAttempts) {
    await store.markFailed(outboxId, reason);
    logger.error('e-mail failed for good; outbox item marked failed', { attempts: attempts + 1, reason });
    return DONE;
  }
  await store.release(outboxId, reason, 'attempt');
  logger.warn('e-mail refused; will be retried', { attempts: attempts + 1, reason });
  // A refusal's retry does not spend the not-ready budget; it waits longer after each attempt.
  return { done: false, retry: message, delaySeconds: backoffSeconds(attempts + 1) };
}
