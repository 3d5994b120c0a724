/**
 * The group and payment records as the table keeps them (domain/groups.ts holds their rules and
 * views): amounts in cents, times as ISO strings.
 */
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import type { PaymentAttemptView } from '#contract/schemas/retries';
import type { DisputeView } from '#contract/schemas/disputes';
import type { Cents } from './money';
import type { AuthResponse, ProcessingSummary } from './processing';
import type { PaymentRetry, RetryPolicy } from './retries';

export type GroupStatus = 'pending' | 'processing' | 'processed' | 'deleted';
export type TransactionInitiator = 'Merchant' | 'Consumer';

export interface Group {
  paymentGroupId: string;
  merchantId: string;
  scheduleDate: string;
  scheduleHour: number;
  locationId: number;
  transactionInitiator: TransactionInitiator;
  surchargeCompliance: boolean;
  allowPartial: boolean;
  status: GroupStatus;
  paymentCount: number;
  totalCents: Cents;
  dateCreated: string;
  lastUpdated: string;
  /**
   * The number of events announced for the group (the last one's sequence; absent: none). Every
   * change that announces one (settings, delete, processing, processed, void-or-refund done) holds
   * only if it is still the number read, so concurrent updates never lose one another and the
   * group's events have no gap (store/events.ts).
   */
  eventSeq?: number;
  /** Set by the claim that moves the group to processing, and by each re-drive (a new attempt). */
  executionName?: string;
  processingAttempt?: number;
  /** The attempt's execution, once started (shown in group responses). */
  executionArn?: string;
  /** When the current attempt was claimed or re-driven. */
  claimedAt?: string;
  /** When the group was claimed (kept across re-drives: the stuck-group alarm counts from it). */
  processingSince?: string;
  /** Set when the last receipt of a processed group is queued. */
  receiptsQueuedAt?: string;
  /** Set when processing completes. */
  processingSummary?: ProcessingSummary;
  /** When a void-or-refund request of the group last finished (announced then). */
  lastReversedAt?: string;
  /** The latest background void-or-refund (more than 1,000 payments). */
  voidOrRefundSummary?: VoidOrRefundSummary;
  /** The series whose occurrence the group is (domain/series.ts), and which occurrence (from 1). */
  seriesId?: string;
  occurrence?: number;
  /** The group's own retry policy (shown); without one the merchant's settings apply. */
  retryPolicy?: RetryPolicy;
  /**
   * The slot of the group's next retry round: the earliest scheduled retry of its payments,
   * written when a run completes (absent: none scheduled).
   */
  retrySlot?: string;
  /**
   * The group's runs are done and a retry round is due at `retrySlot`: it waits in the due index
   * at that slot (docs/architecture.md#retry-rounds), and the tick claims the round.
   */
  awaitingRetry?: boolean;
  /** Retry rounds claimed so far (the current or last one's number). */
  retryRound?: number;
  /** When the current (or last) retry round was claimed (kept across re-drives). */
  retryRoundAt?: string;
  /**
   * While a retry round is claimed and its charges are not done: the latest slot whose due
   * retries it charges (`9999-12-31T23` for every scheduled one: a tester's retry-now, a deleted
   * group's cancellations).
   */
  retryBound?: string;
}

/**
 * A background void-or-refund run as the group keeps it. `generation` numbers the runs (each its
 * own execution); the counts are this run's, written after each batch and when it is done.
 */
export interface VoidOrRefundSummary {
  status: 'running' | 'done';
  generation: number;
  executionArn: string;
  startedAt: string;
  voidedCount: number;
  refundedCount: number;
  /** Refunds scheduled inside the void margin (absent on summaries written before they existed). */
  refundScheduledCount?: number;
  skippedCount: number;
  failedCount: number;
}

export interface Fee {
  name: string;
  amountCents: Cents;
}

export interface Payment {
  paymentId: string;
  paymentGroupId: string;
  merchantId: string;
  profileId: string;
  amountCents: Cents;
  orderId?: string;
  /** The payor's sponsorKey when the payment was written (created, or replaced by a PUT). */
  sponsorKey?: string;
  recurring: boolean;
  allowPartial?: boolean;
  sendEmailReceipt: boolean;
  sendPaymentScheduledNotification: boolean;
  customAttributes?: Record<string, string | number | boolean>;
  fees?: Fee[];
  deleted: boolean;
  dateCreated: string;
  lastUpdated: string;
  /** The sale that charged it (or the Failed answer), once processed. */
  authResponse: AuthResponse | null;
  voidOrRefundResponses?: VoidOrRefundResponse[];
  /** Default false: the payor is e-mailed when a charge of this payment is declined. */
  sendDeclineNotification?: boolean;
  /** Every charge, oldest first (absent on payments answered before retries existed: one). */
  attempts?: PaymentAttempt[];
  /** The retry under the group's policy; absent when it allows none. */
  retry?: PaymentRetry;
  /**
   * The sale whose bank return the group's processingSummary counts (returnedCount, no longer in
   * approvedCount): set with that move, once (core/notice-follow-ups.ts). Absent: not moved yet.
   */
  returnCounted?: string;
  /**
   * The dispute (its disputeId) the group's processingSummary counts as disputed: set with that
   * move, once per dispute (core/notice-follow-ups.ts). Absent: none moved yet.
   */
  disputeCounted?: string;
  /**
   * The amount (cents) of that dispute the summary counts: its amount when it was moved, set with
   * the move. A later dispute of the sale moves the summary from it, whatever the counted
   * dispute's amount became since. Absent on a payment moved before it was kept.
   */
  disputeCountedCents?: number;
  /**
   * The number of events announced for the payment (absent: none; one created with its group is
   * announced by the group's `group.created`). Each change that announces one holds only if it
   * is still the number read.
   */
  eventSeq?: number;
  /** The latest dispute of the card charge that paid it (store/disputes.ts). */
  dispute?: DisputeView;
}

/** One charge of a payment as it keeps it: the view's fields and the retry round it ran in. */
export type PaymentAttempt = PaymentAttemptView & {
  /** The group's retry round that made it (absent: the first processing). */
  round?: number;
};
