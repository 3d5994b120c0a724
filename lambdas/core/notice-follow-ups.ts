/**
 * A notice's follow-up work (core/notices.ts): written ahead in the notice's transaction, done
 * right after it, and by the backstop job when a crash came between. Every step is idempotent.
 *
 * - `method`: a returned debit's saved method closed (`administrative`) or revoked
 *   (`unauthorized`: and its payments in every series suspended, `authorization_revoked`, each
 *   series at its revision read with `series.updated`), announced (`payment_method.updated`, `payment_method.revoked`) with the
 *   payor's e-mail, in one transaction under the account updater's per-cause mark
 *   (store/account-updates.ts: `return:<transactionId>`), so that a repeat changes nothing; a
 *   method already so (or revoked, which nothing undoes) or deleted is left as it is.
 * - `refunds`: refunds held until the debit cleared (docs/product.md "Reversals of bank debits"),
 *   sent now, each with its own processor key (the one it was given when it was accepted: a repeat
 *   gets the first answer), its outcome written (and announced) only while it is still Pending:
 *   however often and by however many passes it runs, each refund moves money once.
 * - `summary`: a returned payment moved into its group's processingSummary (returnedCount and
 *   returnedAmount up, approved down) with the payment's `returnCounted` mark in one transaction
 *   (store/bank-notices.ts countReturn), so a repeat finds it marked; while a run of the group
 *   counts its payments (processing, a retry round charging) it waits, left for the backstop.
 * - `dispute-summary`: a scheduled payment's disputed card charge moved into its group's
 *   processingSummary (disputedCount and disputedAmount up; still approved) with the payment's
 *   `disputeCounted` mark, once per dispute, as `summary` does for a return.
 * - `return-email`: the payor's e-mail that the debit was returned, queued once (its outbox id is
 *   the sale's: `return:<transactionId>`).
 *
 * A notice's steps are done in order; one that fails leaves the item for the backstop's next pass
 * after the others were tried (each is idempotent, so the repeat of the done ones changes nothing).
 */
import { isDeepStrictEqual } from 'node:util';
import { methodAfterReturn, nsfAsDecline, seriesSuspension } from '#domain/bank-notices';
import { disputeView } from '#domain/disputes';
import { toCents } from '#domain/money';
import { disputeSummaryDelta, returnSummaryDelta, type SummaryDelta } from '#domain/summary-deltas';
import { nextSequence } from '#domain/events';
import { attemptsOf, paymentEvent, type Payment } from '#domain/groups';
import { reversedByMerchant } from '#domain/retries';
import { seriesEvent } from '#domain/series-view';
import type { NoticeFollowUp } from '#domain/notices';
import { accountUpdateOutboxId, debitReturnedOutboxId } from '#domain/notifications';
import { methodEvent } from '#domain/payors';
import { logger } from '#shared/logger';
import { PAYOR, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { accountUpdateStore } from '#store/account-updates';
import { bankNoticeStore } from '#store/bank-notices';
import { outboxStore } from '#store/outbox';
import { noticeStore } from '#store/notices';
import { payorStore } from '#store/payors';
import { seriesStore } from '#store/series';
import { claimStore } from '#store/claims';
import { disputeStore } from '#store/disputes';
import { paymentStore } from '#store/payments';
import { retryRoundStore } from '#store/retry-rounds';
import { transactionStore } from '#store/transactions';
import { retryDecision } from './attempts';
import { sendScheduledRefund } from './scheduled-refunds';
import { groupRetryPolicy } from './processing-run';
import { methodUnusableEmail } from './account-updater';
import { findMerchant } from './merchants';
import { clock } from '#shared/clock';

type MethodWork = Extract<NoticeFollowUp, { kind: 'method' }>;

/** Closes or revokes the method of a returned debit once: what it came to, for the log. */
async function closeOrRevoke(work: MethodWork, now: Date): Promise<string> {
  const store = accountUpdateStore();
  const markId = `return:${work.transactionId}`;
  return withOptimisticRetry(async () => {
    if (await store.isApplied(markId, work.savedPaymentMethodId)) return 'done before';
    const found = await payorStore().find(work.payorId, work.merchantId);
    const method = found?.methods.find((m) => m.savedPaymentMethodId === work.savedPaymentMethodId);
    if (!found || !method) return 'method gone';
    const next = methodAfterReturn(method, work.action, now);
    if (!next) return `method ${method.status ?? 'active'} already`;
    const type = work.action === 'revoke' ? 'payment_method.revoked' : 'payment_method.updated';
    const event = methodEvent(type, next, found.payor.defaultPaymentMethodId, now);
    const outbox =
      found.payor.email === undefined
        ? undefined
        : await methodUnusableEmail(
            accountUpdateOutboxId(`${markId}:${work.savedPaymentMethodId}`),
            found.payor.email,
            next,
            { status: work.action === 'revoke' ? 'revoked' : 'closed', returnCode: work.code },
            now,
          );
    const written = await store.apply(markId, next, event, outbox, now);
    if (written === 'changed') return undefined; // read again
    return written === 'ok' ? (work.action === 'revoke' ? 'revoked' : 'closed') : 'done before';
  }, PAYOR);
}

/**
 * A revoked method's payments in every series suspended (the series go on for their other
 * payments), each series in writes at its revision read, announced by `series.updated`: how many.
 * A series still being created that names the method (a large create, its payments written ahead
 * of its commit, past its fence before the revocation) is waited for: the step is left for the
 * next pass, which finds it committed (and suspends its payments) or swept away.
 */
async function suspendSeriesPayments(methodId: string, now: Date): Promise<number> {
  const store = seriesStore();
  const uses = await store.usesOfMethod(methodId);
  const creating = uses.some((u) => u.seriesStatus === 'creating');
  const seriesIds = [...new Set(uses.filter((u) => u.seriesStatus !== 'creating').map((u) => u.seriesId))];
  let suspended = 0;
  for (const seriesId of seriesIds) {
    for (;;) {
      const written = await withOptimisticRetry(
        async () => {
          const series = await store.get(seriesId);
          const change = series && seriesSuspension(series, await store.payments(seriesId), methodId, now);
          if (!change) return 0;
          const event = seriesEvent('series.updated', change.next, now);
          return (await store.suspendPayments(change.next, series, change.suspend, event))
            ? change.suspend.length
            : undefined;
        },
        { resource: 'this series' },
      );
      if (written === 0) break;
      suspended += written;
    }
  }
  if (creating) throw new Error('a series naming the method is still being created: suspended once it is');
  return suspended;
}

type RetryWork = Extract<NoticeFollowUp, { kind: 'retry' }>;

/**
 * The payment of a debit returned for insufficient funds, retried as after a `51` decline: its
 * retry decided by its group's policy and Nacha's limit (core/attempts.ts retryDecision), written
 * with its event (`payment.retry_scheduled`, or `payment.updated` saying why not) and, when
 * scheduled, its group brought back to wait for a round. Once: a repeat finds it decided.
 */
async function retryAfterReturn(work: RetryWork, now: Date): Promise<string> {
  return withOptimisticRetry(
    async () => {
      const payment = await paymentStore().getPayment(work.paymentGroupId, work.paymentId);
      const group = await claimStore().read(work.paymentGroupId);
      if (!payment || payment.deleted || group?.status !== 'processed') return 'payment or group gone';
      const attempts = attemptsOf(payment);
      const last = attempts[attempts.length - 1];
      const auth = payment.authResponse;
      if (last?.transactionId !== work.transactionId || auth?.status !== 'Returned' || !auth.return)
        return 'a later attempt answered';
      // A round charging now: its end is read again by the next pass.
      if (group.retryBound !== undefined) throw new Error('a retry round of the group is running');
      const found = await transactionStore().find(work.transactionId);
      const txn = found?.transaction;
      const retry =
        reversedByMerchant(payment, found?.refunds) ??
        (await retryDecision(
          payment,
          { auth: nsfAsDecline(auth, auth.return.returnedAt), ...(txn && { txn }) },
          attempts.length,
          { merchantId: work.merchantId, retryPolicy: await groupRetryPolicy(group) },
        ));
      if (!retry || isDeepStrictEqual(retry, payment.retry)) return 'decided before';
      const next: Payment = {
        ...payment,
        retry,
        lastUpdated: now.toISOString(),
        eventSeq: nextSequence(payment.eventSeq),
      };
      const type = retry.status === 'scheduled' ? 'payment.retry_scheduled' : 'payment.updated';
      const written = await retryRoundStore().retryAfterReturn(
        payment,
        next,
        group,
        paymentEvent(type, next, now),
      );
      return written ? `retry ${retry.status}` : undefined;
    },
    { resource: 'this payment' },
  );
}

type RefundsWork = Extract<NoticeFollowUp, { kind: 'refunds' }>;

/**
 * The refunds held until the debit cleared, sent now: each still Pending sent with its key and
 * finished (Completed, or Failed with its amount given back), one after the other. A crash between
 * the processor's answer and the refund's outcome leaves it Pending and the follow-up written: the
 * next pass asks again under the same key and gets the same answer. What each came to, for the log.
 */
async function sendHeldRefunds(work: RefundsWork, now: Date): Promise<string> {
  const found = await transactionStore().find(work.transactionId);
  if (!found) return 'sale gone';
  const results: string[] = [];
  for (const refundId of work.refundIds) {
    const refund = found.refunds.find((r) => r.refundId === refundId);
    if (refund?.status !== 'Pending') {
      results.push(`${refundId} ${refund?.status ?? 'gone'} before`);
      continue;
    }
    results.push(`${refundId} ${(await sendScheduledRefund(found.transaction, refund, now)).status}`);
  }
  return results.join('; ');
}

type SummaryWork = Extract<NoticeFollowUp, { kind: 'summary' }>;
type DisputeSummaryWork = Extract<NoticeFollowUp, { kind: 'dispute-summary' }>;

/** Why there is nothing to move (a string), or the payment's mark and the summary's delta. */
type SummaryMove =
  | string
  | {
      mark: { field: 'returnCounted' | 'disputeCounted'; value: string; cents?: number };
      delta: SummaryDelta;
    };

/**
 * A payment's move into its group's summary, once under its mark: what it came to. `pending`
 * reads the payment and says why there is nothing to move (a string), or the mark and the delta.
 */
async function moveInSummary(
  work: SummaryWork | DisputeSummaryWork,
  pending: (payment: Payment) => SummaryMove | Promise<SummaryMove>,
): Promise<string> {
  return withOptimisticRetry(
    async () => {
      const payment = await paymentStore().getPayment(work.paymentGroupId, work.paymentId);
      if (!payment || payment.deleted) return 'payment gone';
      const move = await pending(payment);
      if (typeof move === 'string') return move;
      const written = await bankNoticeStore().countInSummary(payment, move.mark, move.delta);
      if (written === 'changed') return undefined; // read again
      if (written === 'busy') {
        const group = await claimStore().read(work.paymentGroupId);
        if (!group || group.status === 'deleted') return 'group gone';
        throw new Error('a run of the group is counting its payments: the summary waits for it');
      }
      return 'counted';
    },
    { resource: 'this payment' },
  );
}

/** The returned payment moved into its group's summary once: what it came to. */
const countReturnInSummary = (work: SummaryWork): Promise<string> =>
  moveInSummary(work, (payment) => {
    if (payment.returnCounted === work.transactionId) return 'counted before';
    const auth = payment.authResponse;
    if (auth?.status !== 'Returned' || auth.transactionId !== work.transactionId)
      return 'a later attempt answered'; // the run that answered it counted it as it stands
    return {
      mark: { field: 'returnCounted', value: work.transactionId },
      delta: returnSummaryDelta(payment),
    };
  });

/**
 * The disputed payment moved into its group's summary once per dispute: what it came to. An
 * earlier dispute of its sale counted before (an inquiry closed, then the chargeback) is read for
 * what the summary counts of it (the amount kept with its move, `disputeCountedCents`, when the
 * payment has it): the payment is disputed there already, only the sum moves. The amount counted
 * is kept with the mark.
 */
const countDisputeInSummary = (work: DisputeSummaryWork): Promise<string> =>
  moveInSummary(work, async (payment) => {
    if (payment.disputeCounted === work.disputeId) return 'counted before';
    // A later dispute of the sale shows on the payment now: its own follow-up counts it.
    if (payment.dispute?.disputeId !== work.disputeId) return 'another dispute shows';
    const counted =
      payment.disputeCounted === undefined ? undefined : await disputeStore().get(payment.disputeCounted);
    return {
      mark: { field: 'disputeCounted', value: work.disputeId, cents: toCents(payment.dispute.amount) },
      delta: disputeSummaryDelta(payment, counted && disputeView(counted)),
    };
  });

type ReturnEmailWork = Extract<NoticeFollowUp, { kind: 'return-email' }>;

/** The payor's e-mail about the return, queued once: what it came to. */
async function queueReturnEmail(work: ReturnEmailWork, now: Date): Promise<string> {
  const txn = (await transactionStore().find(work.transactionId))?.transaction;
  if (!txn?.return) return 'sale not returned';
  const email = (await payorStore().find(work.payorId, work.merchantId))?.payor.email;
  if (email === undefined) return 'no e-mail for the payor';
  const merchant = await findMerchant(work.merchantId);
  const queued = await outboxStore().putOnce({
    outboxId: debitReturnedOutboxId(txn.transactionId),
    kind: 'debit-returned',
    recipient: email,
    status: 'pending',
    attempts: 0,
    createdAt: now.toISOString(),
    data: {
      merchantName: merchant?.name ?? work.merchantId,
      amountCents: txn.approvedCents,
      maskedAccountNumber: txn.maskedAccountNumber ?? '',
      accountType: txn.accountType ?? '',
      transactionId: txn.transactionId,
      date: txn.processedAt.slice(0, 10),
      code: txn.return.code,
      reason: txn.return.reason,
      category: txn.return.category,
      ...(txn.paymentId !== undefined && { paymentId: txn.paymentId }),
      ...(txn.orderId !== undefined && { orderId: txn.orderId }),
    },
  });
  return queued ? 'e-mail queued' : 'e-mail queued before';
}

/** Does one follow-up's work (each kind's steps are idempotent). */
async function perform(work: NoticeFollowUp, now: Date): Promise<string> {
  switch (work.kind) {
    case 'method': {
      const result = await closeOrRevoke(work, now);
      if (work.action !== 'revoke') return result;
      // Also after a crash between the revocation and the series: the suspension is idempotent.
      const suspended = await suspendSeriesPayments(work.savedPaymentMethodId, now);
      return `${result}; ${suspended} series payments suspended`;
    }
    case 'retry':
      return retryAfterReturn(work, now);
    case 'refunds':
      return sendHeldRefunds(work, now);
    case 'summary':
      return countReturnInSummary(work);
    case 'dispute-summary':
      return countDisputeInSummary(work);
    case 'return-email':
      return queueReturnEmail(work, now);
  }
}

/** Does the notice's follow-up work, if any is left, and removes it: true when there was some. */
export async function runFollowUp(noticeId: string, now: Date): Promise<boolean> {
  const store = noticeStore();
  const item = await store.followUp(noticeId);
  if (!item) return false;
  const steps = [item.work, ...(item.also ?? [])];
  const results: string[] = [];
  let failed: unknown;
  for (const step of steps) {
    try {
      results.push(`${step.kind}: ${await perform(step, now)}`);
    } catch (error) {
      // The other steps go on; the item stays for the backstop's next pass.
      failed ??= error;
      results.push(`${step.kind}: left for the next pass`);
    }
  }
  if (failed !== undefined) {
    logger.info('notice follow-up not finished', { noticeId, results });
    throw failed;
  }
  await store.followUpDone(noticeId);
  logger.info('notice follow-up done', { noticeId, kind: item.work.kind, result: results.join('; ') });
  return true;
}

/**
 * The backstop's pass over follow-up work written before `now` and not done (a crash came
 * between a notice's transaction and its follow-up, or a run's deadline came first): each finished,
 * at most `limit`, none started after `deadlineMs` (epoch ms); how many.
 */
export async function runDueFollowUps(
  now: Date,
  limit: number,
  deadlineMs = Number.POSITIVE_INFINITY,
): Promise<number> {
  const due = await noticeStore().dueFollowUps(now.toISOString(), limit);
  let done = 0;
  for (const item of due) {
    if (clock.nowMs() >= deadlineMs) break;
    try {
      if (await runFollowUp(item.noticeId, now)) done++;
    } catch (error) {
      // Left for the next pass, behind the work due now: work that waits long (a summary's move
      // while its group's retry round charges) never keeps newer work from the oldest `limit` a
      // pass reads; each waiting one has its turn in rotation.
      await noticeStore().followUpLater(item.noticeId, now.toISOString());
      logger.error('notice follow-up failed; left for the next pass', { noticeId: item.noticeId, error });
    }
  }
  return done;
}
