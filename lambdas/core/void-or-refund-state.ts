/**
 * The background void-or-refund's state (statemachines/void-or-refund.asl.json): ids, a cursor
 * and this run's counts, never payment bodies, so it stays a few hundred bytes for any group.
 */
import type { Outcome } from './void-or-refund';
import type { VoidOrRefundSummary } from '#domain/groups';

/** What the API function starts an execution with. */
export interface ReversalInput {
  paymentGroupId: string;
  merchantId: string;
  generation: number;
}

export type ReversalCounts = Record<Outcome, number>;

export interface ReversalState extends ReversalInput {
  /** False when the group's summary names another run (a newer generation): nothing to do. */
  proceed: boolean;
  /** This run's execution, as the group's summary names it. */
  executionArn: string;
  /** The run's start: a reversal recorded since then is this run's (a retried batch meets it). */
  startedAt: string;
  /** The last payment handled (null: from the first); null again after the last batch. */
  cursor: string | null;
  counts: ReversalCounts;
  batches: number;
}

export const noCounts = (): ReversalCounts => ({
  voided: 0,
  refunded: 0,
  refund_scheduled: 0,
  skipped: 0,
  failed: 0,
});

/** The group's summary of the run in `state`. */
export const summaryOf = (
  state: ReversalState,
  status: VoidOrRefundSummary['status'],
): VoidOrRefundSummary => ({
  status,
  generation: state.generation,
  executionArn: state.executionArn,
  startedAt: state.startedAt,
  voidedCount: state.counts.voided,
  refundedCount: state.counts.refunded,
  // A run begun before scheduled refunds existed (a deploy mid-run) has no such count.
  refundScheduledCount: state.counts.refund_scheduled ?? 0,
  skippedCount: state.counts.skipped,
  failedCount: state.counts.failed,
});
