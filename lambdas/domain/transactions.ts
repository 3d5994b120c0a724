/**
 * Transactions (sales) and their refunds: records and the response view with the built-in
 * protections (docs/product.md#transaction-responses). Records hold cents.
 */
import { isBank, type AccountType } from './cards';
import type { RefundResponse, TransactionView } from '#contract/schemas/transactions';
import type { EventType } from '#contract/events';
import { declineOf } from './declines';
import type { DisputeView } from '#contract/schemas/disputes';
import { newEvent, type ServiceEvent } from './events';
import { fromCents, type Cents } from './money';

/**
 * `Pending`: written before the processor is asked, so that no charge exists without a record;
 * a sale stays Pending only while its request runs, or until the sweeper settles it after a crash
 * (docs/product.md#transaction-responses).
 */
export type TransactionStatus = 'Pending' | 'Approved' | 'Declined' | 'Voided' | 'Returned';

/** How the service acts on a bank return (docs/product.md#returns). */
export type ReturnCategory = 'nsf' | 'administrative' | 'unauthorized' | 'other';

/** A bank debit's return, as the sale, its payment's authResponse and its attempt keep it. */
export interface DebitReturn {
  code: string;
  reason: string;
  category: ReturnCategory;
  returnedAt: string;
  /** Returned after a refund of it had completed: the payor has the money twice. */
  afterRefund?: true;
}
export type RefundStatus = 'Pending' | 'Completed' | 'Failed';

export interface Transaction {
  transactionId: string;
  merchantId: string;
  type: 'sale';
  status: TransactionStatus;
  responseCode: string;
  responseMessage: string;
  /** Requested amount. */
  amountCents: Cents;
  /** Charged amount (partial approvals charge less; declines 0). */
  approvedCents: Cents;
  authCode?: string;
  /** The card network's merchant advice code on a decline, when the processor gave one. */
  merchantAdviceCode?: string;
  isDuplicate: boolean;
  originalTransactionId?: string;
  profileId: string;
  payorId: string;
  savedPaymentMethodId: string;
  accountType?: AccountType;
  maskedAccountNumber?: string;
  orderId?: string;
  /** The payor's sponsorKey: its scheduled payment's, or (a sale of the API) the payor's then. */
  sponsorKey?: string;
  /** The scheduled payment this sale charged, when it came from a group. */
  paymentId?: string;
  /** Which charge of that payment it is: absent for the first, 2 for its first retry, ... */
  attempt?: number;
  /**
   * The card or bank account charged, as the retry limits count it (core/retries.ts): the
   * method's fingerprint, or `method:<id>` for a method vaulted without one.
   */
  cardKey?: string;
  /** When the attempt began: the sort key of its entry in the card's history (store/card-history.ts). */
  cardUseAt?: string;
  /** Events announced for the sale (a sale of the transactions API: answered 1, voided 2). */
  eventSeq?: number;
  processorTransactionId?: string;
  processedAt: string;
  /** Settlement cut-off of an approved sale. */
  settlesAt?: string;
  /**
   * Set when the test clock settled the sale (non-production): settled, whatever a later call's
   * time says against its cut-off (the processor's settlement time may be after that call's time).
   */
  clockSettledAt?: string;
  /** Completed plus pending refunds. */
  refundedCents: Cents;
  /** Completed plus pending refunds, counted. */
  refundCount: number;
  /** Refunds the processor refused, counted (absent: none). */
  failedRefundCount?: number;
  voidedAt?: string;
  /** Set when a void is reserved (before the processor is asked); no refund after it. */
  voidingAt?: string;
  /** The processor idempotency key of the sale: the sweeper replays a Pending sale with it. */
  processorKey?: string;
  /** As requested: the sweeper's replay asks the same. */
  allowPartial?: boolean;
  /**
   * Set on a sale given up on (Declined 96) until the processor confirms the timeout reversal of
   * its key; the sweeper retries that reversal.
   */
  reversalDue?: boolean;
  /** Bank debits: false until the processor's `cleared` notice, then true (absent on cards). */
  cleared?: boolean;
  clearedAt?: string;
  /** Status Returned: the bank's return. */
  return?: DebitReturn;
  /**
   * The processor's order (`sequence`) of the last notice applied to this sale: an older notice
   * changes nothing (docs/architecture.md "Notices").
   */
  noticeSeq?: number;
  /** The group of the scheduled payment this sale charged (sales recorded before it was kept: absent). */
  paymentGroupId?: string;
  /** A card sale's latest dispute, as its record shows it (store/disputes.ts keeps both in step). */
  dispute?: DisputeView;
  /** Changes of `dispute` so far: a dispute's write holds only if it is still the number read. */
  disputeRev?: number;
  /**
   * The id of a dispute of this sale that was lost, kept whatever dispute the sale shows later
   * (a second dispute of the charge, won): the cardholder has that money back for good.
   */
  disputeLost?: string;
}

/** A Pending sale's response code and message (docs/product.md#transaction-responses). */
export const PENDING_CODE = 'PD';
export const PENDING_MESSAGE = 'Pending: the processor has not answered yet; GET the transaction again';

/**
 * No void is reserved this close to the settlement cut-off: the void must reach the processor
 * before the cut-off, and a reservation made just before it could be answered after it
 * (docs/decisions.md "Void safety margin"). Within the margin the sale is refunded after the
 * cut-off. The margin is 120 s, or a hundredth of the settlement period when that is shorter
 * (36 s for hourly cut-offs; a sandbox settling every few seconds would otherwise never let a
 * void through).
 */
const VOID_CUTOFF_MARGIN_SECONDS = 120;

export const voidMarginSeconds = (settlementPeriodSeconds: number): number =>
  Math.min(VOID_CUTOFF_MARGIN_SECONDS, settlementPeriodSeconds / 100);

export const withinVoidMargin = (t: Transaction, now: Date, marginSeconds: number): boolean =>
  t.settlesAt !== undefined && Date.parse(t.settlesAt) - now.getTime() < marginSeconds * 1000;

export interface Refund {
  refundId: string;
  transactionId: string;
  amountCents: Cents;
  status: RefundStatus;
  date: string;
  responseCode?: string;
  responseMessage?: string;
  /**
   * A refund scheduled by a group's void-or-refund inside the void margin:
   * the sale's settlement cut-off, before which the processor is not asked. The sweeper sends it
   * right after (its sweep entry is dated then).
   */
  sendAfter?: string;
  /** The scheduled payment it reverses (scheduled refunds: the sweeper shows its outcome there). */
  paymentGroupId?: string;
  paymentId?: string;
  /** A refund of a bank debit that has not cleared: sent when it clears, Failed if it is returned first. */
  heldUntilCleared?: true;
  /**
   * A scheduled or held refund: when it was first sent to the processor (store/refund-sends.ts).
   * From then on it is sent again under its key until it is finished, whatever the sale became.
   */
  sentAt?: string;
  /**
   * A scheduled or held refund refused before it was ever sent (its sale disputed meanwhile): when,
   * and the refusal it ends Failed with (store/refund-sends.ts). Never sent from then on.
   */
  refusedAt?: string;
  refusal?: string;
}

/** The dispute statuses that keep a sale from being refunded or voided (domain/disputes.ts). */
const REFUND_BLOCKING_DISPUTES: readonly string[] = ['inquiry', 'needs_response', 'under_review', 'lost'];

/**
 * Whether a dispute keeps the sale from being refunded or voided: its latest while it is open, and
 * any once lost (the cardholder has the money back through it: a refund would pay twice).
 */
export const disputedNow = (t: Pick<Transaction, 'dispute' | 'disputeLost'>): boolean =>
  t.disputeLost !== undefined ||
  (t.dispute !== undefined && REFUND_BLOCKING_DISPUTES.includes(t.dispute.status));

export const isSettled = (t: Transaction, now: Date): boolean =>
  t.status === 'Approved' && t.settlesAt !== undefined && now.toISOString() >= t.settlesAt;

/**
 * What can still be refunded: charged minus completed and pending refunds (failed ones free up);
 * nothing while a dispute of the sale is open.
 */
export const availableRefundCents = (t: Transaction): Cents =>
  t.status === 'Approved' && t.voidingAt === undefined && !disputedNow(t)
    ? Math.max(0, t.approvedCents - t.refundedCents)
    : 0;

/**
 * The most refunds a bank debit holds until it clears. Its return cancels them all in the one
 * transaction that records it (store/bank-notices.ts: each a refund item and, for a sale of the
 * transactions API, its `refund.failed` event, beside eight items of the return's own), and a
 * transaction holds at most 100 items: a debit with more could never be returned.
 */
export const MAX_HELD_REFUNDS = 40;

/**
 * The most refunds a sale takes (failed ones give their place back): its answer lists every
 * refund, and a sale refunded a cent at a time could otherwise grow past what an answer carries
 * (60,000 refunds: 7 MB) and make every later refund read them all.
 */
export const MAX_REFUNDS_PER_SALE = 100;

/**
 * The most refused refunds a sale takes: a refused refund gives its place back, but stays listed
 * on the sale (and on a scheduled payment, in its voidOrRefundResponses, one DynamoDB item of at
 * most 400 KB), so that a refund the processor refuses again and again would otherwise grow both
 * without end. After as many, a refund is refused (400) before the processor is asked.
 */
export const MAX_FAILED_REFUNDS_PER_SALE = 100;

/**
 * A bank debit the processor accepted that has not cleared: money that may still come back. A
 * refund of it is held until it clears, and cancelled if it is returned first (docs/product.md
 * "Reversals of bank debits").
 */
export const isUnclearedDebit = (t: Transaction): boolean =>
  t.status === 'Approved' && t.accountType !== undefined && isBank(t.accountType) && t.cleared !== true;

/**
 * Why a sale cannot be reversed because the bank returned it (400), or undefined. Its return is
 * final: nothing of it is left to void or refund.
 */
export const returnedRefusal = (t: Transaction, what: 'void' | 'refund'): string | undefined =>
  t.status === 'Returned'
    ? `transaction ${t.transactionId} was returned by the bank (${t.return?.code ?? 'returned'}: ${t.return?.reason ?? 'returned'}); nothing to ${what}`
    : undefined;

/**
 * Why a void of this sale is refused because its processor cannot cancel a submitted bank debit
 * (Stripe), or undefined: such a debit is reversed by a refund, held until it clears.
 */
export const debitVoidRefusal = (t: Transaction, voidsBankDebits: boolean): string | undefined =>
  !voidsBankDebits && isUnclearedDebit(t)
    ? `transaction ${t.transactionId} is a bank debit the processor cannot cancel once submitted; refund it instead (the refund is held until the debit clears)`
    : undefined;

/** A refund as its route answers it, less the sale's availableRefundAmount (the handler adds it). */
export const refundView = (r: Refund): Omit<RefundResponse, 'availableRefundAmount'> => ({
  refundId: r.refundId,
  transactionId: r.transactionId,
  amount: fromCents(r.amountCents),
  status: r.status,
  date: r.date,
  ...(r.responseCode !== undefined && { responseCode: r.responseCode, responseMessage: r.responseMessage }),
  ...(r.heldUntilCleared && r.status === 'Pending' && { heldUntilCleared: true as const }),
});

export function transactionView(t: Transaction, refunds: readonly Refund[], now: Date): TransactionView {
  const decline = t.status === 'Declined' ? declineOf(t.responseCode) : undefined;
  return {
    transactionId: t.transactionId,
    type: t.type,
    status: t.status,
    responseCode: t.responseCode,
    responseMessage: t.responseMessage,
    ...(decline && { declineCategory: decline.category, declineCategoryDescription: decline.description }),
    ...(t.merchantAdviceCode !== undefined && { merchantAdviceCode: t.merchantAdviceCode }),
    isDuplicate: t.isDuplicate,
    ...(t.originalTransactionId !== undefined && { originalTransactionId: t.originalTransactionId }),
    amount: fromCents(t.amountCents),
    approvedAmount: fromCents(t.approvedCents),
    ...(t.authCode !== undefined && { authCode: t.authCode }),
    originalAmount: fromCents(t.approvedCents),
    refundedAmount: fromCents(t.refundedCents),
    availableRefundAmount: fromCents(availableRefundCents(t)),
    refundCount: t.refundCount,
    refundHistory: refunds.map((r) => ({
      refundId: r.refundId,
      amount: fromCents(r.amountCents),
      status: r.status,
      date: r.date,
      ...(r.heldUntilCleared && r.status === 'Pending' && { heldUntilCleared: true as const }),
    })),
    profileId: t.profileId,
    ...(t.accountType !== undefined && {
      accountType: t.accountType,
      maskedAccountNumber: t.maskedAccountNumber,
    }),
    ...(t.orderId !== undefined && { orderId: t.orderId }),
    ...(t.sponsorKey !== undefined && { sponsorKey: t.sponsorKey }),
    ...(t.paymentId !== undefined && { paymentId: t.paymentId }),
    processedAt: t.processedAt,
    settled: isSettled(t, now),
    ...(t.settlesAt !== undefined && t.status !== 'Voided' && { settlementTime: t.settlesAt }),
    ...(t.voidedAt !== undefined && { voidedAt: t.voidedAt }),
    // A bank debit the processor accepted: not cleared until its `cleared` notice.
    ...((t.cleared !== undefined ||
      (t.accountType !== undefined &&
        isBank(t.accountType) &&
        (t.status === 'Approved' || t.status === 'Returned'))) && {
      cleared: t.cleared ?? false,
    }),
    ...(t.clearedAt !== undefined && { clearedAt: t.clearedAt }),
    ...(t.return !== undefined && { return: { ...t.return } }),
    ...(t.dispute !== undefined && { dispute: { ...t.dispute } }),
  };
}

export type { TransactionView };

/**
 * The event announcing `type` of a sale of the transactions API as it is after the change: the
 * transaction as GET shows it, with its refunds as they then stand (none when it is answered or
 * voided; a debit cleared or returned may have some: held, completed before a late return).
 */
export const transactionEvent = (
  type: EventType,
  txn: Transaction,
  now: Date,
  refunds: readonly Refund[] = [],
): ServiceEvent<TransactionView> =>
  newEvent(
    {
      type,
      merchantId: txn.merchantId,
      objectId: txn.transactionId,
      sequence: txn.eventSeq ?? 1,
      data: transactionView(txn, refunds, now),
    },
    now,
  );

/**
 * The event announcing a refund's outcome: the refund as its POST answers it, with its sale's
 * availableRefundAmount once the outcome is written (`sale` as read before it: a failed refund's
 * amount is given back). A refund's one event is its first; a refund that failed after it was
 * announced Completed has a second (`sequence` 2).
 */
export const refundEvent = (
  type: EventType,
  refund: Refund,
  merchantId: string,
  now: Date,
  sale: Transaction | undefined,
  sequence = 1,
): ServiceEvent<ReturnType<typeof refundView> & { availableRefundAmount: number }> => {
  const back = refund.status === 'Failed' ? refund.amountCents : 0;
  const available = sale ? availableRefundCents({ ...sale, refundedCents: sale.refundedCents - back }) : 0;
  const data = { ...refundView(refund), availableRefundAmount: fromCents(available) };
  return newEvent({ type, merchantId, objectId: refund.refundId, sequence, data }, now);
};
