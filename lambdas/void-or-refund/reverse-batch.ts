/**
 * State machine task ReverseBatch: reverses the next batch of the group's payments after the
 * cursor (core/void-or-refund.ts, one payment at a time, a bounded number at once), adds the
 * outcomes to the run's counts and shows them on the group.
 *
 * Deleted payments are not counted, so that a finished run's counts add up to the group's
 * non-deleted payments. A batch retried after a crash meets the reversals its first attempt
 * recorded: those dated since the run started count as this run's voids and refunds, not as skips.
 */
import { VOID_OR_REFUND } from '#contract/processing';
import { reversePayment, type Outcome } from '#core/void-or-refund';
import type { Payment } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { paymentsInRange } from '#core/processing-run';
import { showRunSummary } from '#core/void-or-refund-run';
import { summaryOf, type ReversalState } from '#core/void-or-refund-state';
import { clock } from '#shared/clock';

/** The outcome of a reversal this run recorded already, if any. */
function recordedByThisRun(payment: Payment, startedAt: string): Outcome | undefined {
  const mine = (payment.voidOrRefundResponses ?? []).find(
    (r) => r.status !== 'Failed' && r.date >= startedAt,
  );
  if (!mine) return undefined;
  if (mine.type === 'Void') return 'voided';
  // A refund scheduled inside the void margin, or held until its debit clears, not sent yet.
  return mine.status === 'Pending' && (mine.scheduledFor !== undefined || mine.heldUntilCleared === true)
    ? 'refund_scheduled'
    : 'refunded';
}

export const handler = taskHandler(async (state: ReversalState): Promise<ReversalState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  // The next batchSize payments not deleted, with the deleted ones read past (as processing's
  // batches): a group's deleted payments do not take a batch's places, nor its history events.
  const { payments, cursor } = await paymentsInRange(
    state.paymentGroupId,
    state.cursor,
    null,
    VOID_OR_REFUND.batchSize,
  );
  const outcomes = await mapLimit(
    payments.filter((p) => !p.deleted),
    VOID_OR_REFUND.concurrency,
    async (payment): Promise<Outcome> =>
      recordedByThisRun(payment, state.startedAt) ??
      (await reversePayment(payment, state.merchantId, clock.now())).outcome,
  );
  const counts = { ...state.counts };
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  const next = { ...state, cursor, counts, batches: state.batches + 1 };
  // Progress on the group; refused only when a newer run took over, which then shows its own.
  if (!(await showRunSummary(state.paymentGroupId, summaryOf(next, 'running'), state.generation)))
    logger.warn('void-or-refund summary belongs to another run', { generation: state.generation });
  logger.info('batch reversed', { payments: payments.length, batch: next.batches });
  return next;
});
