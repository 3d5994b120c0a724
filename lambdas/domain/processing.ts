/**
 * Processing of a group: the state the state machine carries between batches (ids, cursors and
 * counters per key range: a few kilobytes whatever the group's size) and the outcome summary.
 */
import { declineOf } from './declines';
import { fromCents, toCents, type Cents } from './money';
import { STUCK_GROUPS_METRIC } from '#contract/processing';
import type { ProcessingSummaryView } from '#contract/schemas/processing';
import type { AuthResponse } from '#contract/schemas/transactions';
import type { TransactionView } from './transactions';
import { countMetricLine } from './metrics';

export type { AuthResponse };

/**
 * What processing reads of a payment. Structural (a `Payment` is one) so that this module does
 * not import `./groups`, which imports the summary view from here.
 */
export interface ChargedPayment {
  deleted: boolean;
  amountCents: Cents;
  authResponse: AuthResponse | null;
  retry?: { status: string; nextAttemptAt?: string };
  attempts?: readonly { round?: number; transactionId?: string }[];
  /**
   * The sale whose return was moved into the group's processingSummary (core/notice-follow-ups.ts:
   * once, while no run of the group counts); until then the summary counts it as approved still.
   */
  returnCounted?: string;
  /** The latest dispute of its card charge (store/disputes.ts): its id, sale and amount. */
  dispute?: { disputeId: string; transactionId: string; amount: number };
  /**
   * The dispute moved into the group's processingSummary (core/notice-follow-ups.ts: once per
   * dispute, while no run of the group counts); until then the summary does not count it disputed.
   */
  disputeCounted?: string;
  /** The amount of that dispute the summary counts (cents, domain/group-records.ts). */
  disputeCountedCents?: number;
}

export interface ProcessingTotals {
  approved: number;
  /** Approved for less than asked (included in `approved`). */
  partial: number;
  declined: number;
  failed: number;
  /** Deleted payments: never processed. */
  skipped: number;
  approvedCents: number;
  /** Latest settlement cut-off among the approved sales (receipts wait for it). */
  settlesAt: string | null;
  /** Payments whose retry is scheduled (absent in states of executions started before retries). */
  retriesScheduled?: number;
  /** Payments approved by a retry, and what those retries charged. */
  recovered?: number;
  recoveredCents?: number;
  /** Payments whose approved bank debit was returned since (not in `approved`), and their sum. */
  returned?: number;
  returnedCents?: number;
  /** Approved payments whose card charge was disputed (included in `approved`), and the sums disputed. */
  disputed?: number;
  disputedCents?: number;
  /** The earliest slot of a scheduled retry: the group's next retry round. */
  nextRetrySlot?: string | null;
}

/**
 * A retry round of a group (docs/architecture.md#retry-rounds), as its execution carries it: the
 * round's number, the latest slot whose due retries it charges, the policy, and whether the group
 * was deleted (its scheduled retries are then cancelled, nothing charged).
 */
export interface RetryRun {
  round: number;
  bound: string;
  groupDeleted: boolean;
  /** When the round was claimed: the time its retries' card-history entries are written at. */
  startedAt: string;
}

/**
 * One key range of a group's payments, as one iteration of the state machine's Map carries it
 * through its AuthorizeBatch/FailBatch loop: its own cursor and totals.
 */
export interface BatchState {
  paymentGroupId: string;
  merchantId: string;
  allowPartial: boolean;
  /** Sort key of the last payment handled (or of the previous range's end); null: from the first. */
  cursor: string | null;
  /** Sort key of the range's last payment (inclusive); null or absent: to the group's last. */
  upTo?: string | null;
  totals: ProcessingTotals;
  batches: number;
  /** The group's effective retry policy (absent: executions started before retries; none). */
  retryPolicy?: { maxRetries: number; intervalHours: number };
  /** Present in a retry round's execution: the batches charge due retries only. */
  retry?: RetryRun;
  /**
   * The last batch was given back unfinished (the processor's rate was taken until its task's
   * deadline): the range goes on from the cursor even when it is still null.
   */
  held?: boolean;
}

export interface ProcessingState extends BatchState {
  /** True when the group is claimed for processing (status processing); false ends the run. */
  claimed: boolean;
  /** A processed group whose receipts were not all queued (a re-drive): receipts only. */
  receiptsOnly?: boolean;
  /** The key ranges processed in parallel (BeginGroup); empty once CompleteGroup summed them. */
  ranges?: BatchState[];
  /** How many ranges run at once (the Map's MaxConcurrencyPath). */
  fanOut?: number;
  /**
   * Receipts paging of an execution started before receipts fanned out (one loop over the group):
   * EmitReceipts still takes that state; new executions page each receipt range instead.
   */
  receiptCursor: string | null;
  receiptsDone: boolean;
  /**
   * The group's key ranges for its receipts, queued at once by the state
   * machine's Map (QueueReceipts), each with its own cursor: set by CompleteGroup from the
   * processing ranges' cuts (or by BeginGroup for a receipts-only re-drive).
   */
  receiptRanges?: ReceiptRange[];
  /** Receipts queued by this execution (ReceiptsQueued sums the ranges'). */
  receiptsQueued?: number;
}

/** One key range of a group's payments whose receipts one iteration of QueueReceipts queues. */
export interface ReceiptRange {
  paymentGroupId: string;
  merchantId: string;
  /** Its index among the group's receipt ranges (what tells a range from a whole-group state). */
  receiptRange: number;
  /** Sort key of the last payment handled (or of the previous range's end); null: from the first. */
  receiptCursor: string | null;
  /** Sort key of the range's last payment (inclusive); null: to the group's last. */
  upTo: string | null;
  receiptsDone: boolean;
  receiptsQueued: number;
}

/** The receipt ranges between cut points (sort keys, ascending), as rangesBetween cuts them. */
export function receiptRangesBetween(
  cuts: readonly string[],
  base: Pick<ReceiptRange, 'paymentGroupId' | 'merchantId'>,
): ReceiptRange[] {
  return [null, ...cuts].map((from, i) => ({
    paymentGroupId: base.paymentGroupId,
    merchantId: base.merchantId,
    receiptRange: i,
    receiptCursor: from,
    upTo: cuts[i] ?? null,
    receiptsDone: false,
    receiptsQueued: 0,
  }));
}

/** The cut points of processing ranges (each range's end but the last's). */
export const cutsOf = (ranges: readonly Pick<BatchState, 'upTo'>[]): string[] =>
  ranges.map((r) => r.upTo).filter((upTo): upTo is string => typeof upTo === 'string');

/**
 * Step Functions runs at most 40 iterations of an inline Map at once: a larger PROCESS_FAN_OUT
 * would only queue.
 */
export const MAX_FAN_OUT = 40;

/**
 * How many ranges a group is cut into: one per batch up to the fan-out, so a group of one batch
 * stays one range, and the range size (payments per range, the last one takes any rest).
 */
export function rangePlan(paymentCount: number, batchSize: number, fanOut: number) {
  const ranges = Math.max(1, Math.min(fanOut, MAX_FAN_OUT, Math.ceil(paymentCount / batchSize)));
  return { ranges, size: Math.max(1, Math.ceil(paymentCount / ranges)) };
}

/**
 * The ranges between cut points (sort keys, ascending): the first from the start, each next one
 * after the key the previous ends on, the last to the end, so together they cover every key.
 */
export function rangesBetween(
  cuts: readonly string[],
  base: Pick<BatchState, 'paymentGroupId' | 'merchantId' | 'allowPartial' | 'retryPolicy' | 'retry'>,
): BatchState[] {
  return [null, ...cuts].map((from, i) => ({
    ...base,
    cursor: from,
    upTo: cuts[i] ?? null,
    totals: emptyTotals(),
    batches: 0,
  }));
}

/** The ranges' totals as one (settlesAt: the latest). */
export function sumTotals(parts: readonly ProcessingTotals[]): ProcessingTotals {
  const sum = emptyTotals();
  for (const t of parts) {
    sum.approved += t.approved;
    sum.partial += t.partial;
    sum.declined += t.declined;
    sum.failed += t.failed;
    sum.skipped += t.skipped;
    sum.approvedCents += t.approvedCents;
    if (t.settlesAt && (!sum.settlesAt || t.settlesAt > sum.settlesAt)) sum.settlesAt = t.settlesAt;
    sum.retriesScheduled! += t.retriesScheduled ?? 0;
    sum.recovered! += t.recovered ?? 0;
    sum.recoveredCents! += t.recoveredCents ?? 0;
    sum.returned! += t.returned ?? 0;
    sum.returnedCents! += t.returnedCents ?? 0;
    sum.disputed! += t.disputed ?? 0;
    sum.disputedCents! += t.disputedCents ?? 0;
    sum.nextRetrySlot = earlierSlot(sum.nextRetrySlot ?? null, t.nextRetrySlot ?? null);
  }
  return sum;
}

const earlierSlot = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : a < b ? a : b;

export const emptyTotals = (): ProcessingTotals => ({
  approved: 0,
  partial: 0,
  declined: 0,
  failed: 0,
  skipped: 0,
  approvedCents: 0,
  settlesAt: null,
  retriesScheduled: 0,
  recovered: 0,
  recoveredCents: 0,
  returned: 0,
  returnedCents: 0,
  disputed: 0,
  disputedCents: 0,
  nextRetrySlot: null,
});

/**
 * Adds one payment's outcome (its latest attempt) to the totals. In a retry round (`round`), only
 * a sale approved in that round has a settlement its receipts wait for: the others' receipts
 * went out with their own run. A returned bank debit counts as returned (not approved) once its
 * return is in the summary (`returnCounted` names its sale), and an approved card charge as
 * disputed (and approved still) once its dispute is (`disputeCounted` names it); or both always
 * with `all` (the report, which counts what is).
 */
export function countOutcome(
  totals: ProcessingTotals,
  payment: ChargedPayment,
  round?: number,
  all = false,
): void {
  if (payment.deleted) {
    totals.skipped++;
    return;
  }
  const auth = payment.authResponse;
  if (!auth) return;
  const returned = auth.status === 'Returned' && (all || payment.returnCounted === auth.transactionId);
  if (returned) {
    totals.returned = (totals.returned ?? 0) + 1;
    totals.returnedCents = (totals.returnedCents ?? 0) + Math.round(Number(auth.approvedAmount) * 100);
  } else if (auth.status === 'Approved' || auth.status === 'Returned') {
    totals.approved++;
    const approvedCents = Math.round(Number(auth.approvedAmount) * 100);
    totals.approvedCents += approvedCents;
    if (approvedCents < payment.amountCents) totals.partial++;
    // A return not yet moved into the summary leaves the payment counted as the run counted it:
    // recovered when a retry approved it, though its nsf return may have scheduled the next one.
    const approvedByRetry =
      (payment.attempts?.findIndex((a) => a.transactionId === auth.transactionId) ?? 0) > 0;
    if (payment.retry?.status === 'succeeded' || (auth.status === 'Returned' && approvedByRetry)) {
      totals.recovered = (totals.recovered ?? 0) + 1;
      totals.recoveredCents = (totals.recoveredCents ?? 0) + approvedCents;
    }
    const dispute = payment.dispute;
    // The summary (a run's recount too) counts a payment disputed as its moves left it: from the
    // first dispute of its sale moved in, whichever dispute shows now (a later one's move, still
    // to come, moves the sum only), at the amount the last move kept. The report counts what is.
    if (
      auth.status === 'Approved' &&
      dispute !== undefined &&
      dispute.transactionId === auth.transactionId &&
      (all || payment.disputeCounted !== undefined)
    ) {
      totals.disputed = (totals.disputed ?? 0) + 1;
      const counted = all ? undefined : payment.disputeCountedCents;
      totals.disputedCents = (totals.disputedCents ?? 0) + (counted ?? toCents(dispute.amount));
    }
    const thisRun = round === undefined || payment.attempts?.at(-1)?.round === round;
    const settlesAt = thisRun ? (auth.settlementTime ?? null) : null;
    if (settlesAt && (!totals.settlesAt || settlesAt > totals.settlesAt)) totals.settlesAt = settlesAt;
  } else if (auth.status === 'Failed') totals.failed++;
  else totals.declined++;
  if (payment.retry?.status === 'scheduled' && payment.retry.nextAttemptAt) {
    totals.retriesScheduled = (totals.retriesScheduled ?? 0) + 1;
    const slot = payment.retry.nextAttemptAt.slice(0, 13);
    totals.nextRetrySlot = earlierSlot(totals.nextRetrySlot ?? null, slot);
  }
}

/** The authResponse of a payment that could not be charged after the retries (may retry: category 2). */
export function failedAuthResponse(
  payment: Pick<ChargedPayment, 'amountCents'>,
  reason: string,
  now: Date,
): AuthResponse {
  const decline = declineOf('96');
  return {
    status: 'Failed',
    responseCode: '96',
    responseMessage: `Processing failed: ${reason}`,
    declineCategory: decline.category,
    declineCategoryDescription: decline.description,
    isDuplicate: false,
    amount: fromCents(payment.amountCents),
    approvedAmount: 0,
    originalAmount: 0,
    refundedAmount: 0,
    availableRefundAmount: 0,
    refundCount: 0,
    refundHistory: [],
    processedAt: now.toISOString(),
  };
}

/**
 * The authResponse of a payment its sale answered: the sale as a Transaction at processing time.
 * A sale is recorded Approved or Declined; only a void makes it Voided, and nothing voids a
 * scheduled payment's sale before its authResponse is written (void-or-refund reads it there).
 */
export function saleAuthResponse(view: TransactionView): AuthResponse {
  const { status } = view;
  // Voided before its payment recorded it, or not answered yet: neither is a payment's answer.
  if (status !== 'Approved' && status !== 'Declined')
    throw new Error(`sale ${view.transactionId} is ${status}: not an answer for its payment`);
  return { ...view, status };
}

export type ProcessingSummary = ProcessingTotals & { processedAt: string };

export const summaryView = (s: ProcessingSummary): ProcessingSummaryView => ({
  approvedCount: s.approved,
  partialCount: s.partial,
  declinedCount: s.declined,
  failedCount: s.failed,
  skippedCount: s.skipped,
  approvedAmount: fromCents(s.approvedCents),
  processedAt: s.processedAt,
  retriesScheduled: s.retriesScheduled ?? 0,
  recoveredCount: s.recovered ?? 0,
  recoveredAmount: fromCents(s.recoveredCents ?? 0),
  returnedCount: s.returned ?? 0,
  returnedAmount: fromCents(s.returnedCents ?? 0),
  disputedCount: s.disputed ?? 0,
  disputedAmount: fromCents(s.disputedCents ?? 0),
});

/**
 * The tick's stuck-groups count as one CloudWatch embedded-metric-format log line: CloudWatch
 * turns it into the GroupsProcessingTooLong metric (namespace and dimension from the contract,
 * which the CDK alarm uses too) without an API call.
 */
export const stuckGroupsMetricLine = (count: number, stage: string, at: Date): string =>
  countMetricLine(STUCK_GROUPS_METRIC, count, stage, at);
