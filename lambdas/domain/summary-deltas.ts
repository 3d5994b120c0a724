/**
 * What a payment's return or dispute, applied after its group's run counted it, moves in the
 * group's processingSummary (core/notice-follow-ups.ts): the counters as the payment counts
 * without the summary's mark and with it.
 */
import { toCents } from './money';
import { countOutcome, emptyTotals, type ChargedPayment } from './processing';

/** The counters of the totals that a payment's return or dispute moves (settlesAt and slots are not). */
const SUMMARY_MOVES = [
  'approved',
  'partial',
  'approvedCents',
  'recovered',
  'recoveredCents',
  'returned',
  'returnedCents',
  'disputed',
  'disputedCents',
] as const;

export type SummaryDelta = Partial<Record<(typeof SUMMARY_MOVES)[number], number>>;

/** What a summary's mark on a payment says is counted: its return's sale, or its dispute. */
type SummaryMark =
  Pick<ChargedPayment, 'returnCounted'> | Pick<ChargedPayment, 'disputeCounted' | 'disputeCountedCents'>;

/**
 * What marking the payment (`mark`) changes in its group's summary: the counters as the payment
 * counts without that mark (or as `counted`, the payment as the summary counts it now) and with
 * it, each non-zero difference (the other mark as it is).
 */
function summaryDelta(payment: ChargedPayment, mark: SummaryMark, counted?: ChargedPayment): SummaryDelta {
  const before = emptyTotals();
  const after = emptyTotals();
  const unmarked = { ...payment };
  for (const field of Object.keys(mark)) delete unmarked[field as keyof SummaryMark];
  countOutcome(before, counted ?? unmarked);
  countOutcome(after, { ...payment, ...mark });
  const delta: SummaryDelta = {};
  for (const field of SUMMARY_MOVES) {
    const d = (after[field] ?? 0) - (before[field] ?? 0);
    if (d !== 0) delta[field] = d;
  }
  return delta;
}

/**
 * What moving a returned payment's return into its group's summary changes: the summary's
 * counters as the payment counts before (approved still) and after, each
 * non-zero difference. Empty when the payment is not returned.
 */
export const returnSummaryDelta = (payment: ChargedPayment): SummaryDelta =>
  summaryDelta(payment, { returnCounted: payment.authResponse?.transactionId });

/**
 * What moving a payment's dispute (its latest, `dispute`) into its group's summary changes:
 * disputed and its sum up (the payment stays approved). Empty when its latest sale is not disputed.
 * When the summary counts an earlier dispute of the same sale (`counted`, the one the payment's
 * `disputeCounted` names, at the amount its move kept, `disputeCountedCents`, or as it is now on a
 * payment moved before that was kept), the payment is disputed there already: the move is from
 * that sum to this one's, and counts the payment no second time. The mark keeps this one's.
 */
export const disputeSummaryDelta = (
  payment: ChargedPayment,
  counted?: NonNullable<ChargedPayment['dispute']>,
): SummaryDelta =>
  summaryDelta(
    payment,
    {
      disputeCounted: payment.dispute?.disputeId,
      disputeCountedCents: payment.dispute && toCents(payment.dispute.amount),
    },
    counted && { ...payment, dispute: counted },
  );

/** The counters of the totals that deleting a payment moves (settlesAt and slots are not). */
const DELETION_MOVES = [
  'approved',
  'partial',
  'declined',
  'failed',
  'skipped',
  'approvedCents',
  'retriesScheduled',
  'recovered',
  'recoveredCents',
  'returned',
  'returnedCents',
  'disputed',
  'disputedCents',
] as const;

/**
 * What deleting a payment of a processed group (its retry scheduled) changes in the group's
 * summary: the counters as the summary counts the payment now (declined or failed, or returned,
 * or approved still until its return is moved in) and as deleted (skipped), each non-zero
 * difference.
 */
export function deletionSummaryDelta(
  payment: ChargedPayment,
): Partial<Record<(typeof DELETION_MOVES)[number], number>> {
  const before = emptyTotals();
  const after = emptyTotals();
  countOutcome(before, payment);
  countOutcome(after, { ...payment, deleted: true });
  const delta: Partial<Record<(typeof DELETION_MOVES)[number], number>> = {};
  for (const field of DELETION_MOVES) {
    const d = (after[field] ?? 0) - (before[field] ?? 0);
    if (d !== 0) delta[field] = d;
  }
  return delta;
}
