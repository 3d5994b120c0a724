/**
 * A bank debit's clearing and return (DESIGN section 6, "Bank debits: clearing, returns,
 * corrections"; docs/product.md "Returns"): plain rules, no AWS. What a `cleared` or `returned`
 * notice does to the sale it names, to the scheduled payment that sale charged, and which further
 * effect it leaves to its follow-up (core/notice-follow-ups.ts).
 *
 * - A notice applies only to a final, approved bank debit: none yet, or still Pending, is `held`
 *   (a processor's webhook can beat its API answer); a void or a refund of it in flight holds it
 *   too (it is tried again when they are done).
 * - It never moves a sale back: one older than the last notice applied to the sale, a clearing
 *   after a return, a second clearing or return, is `stale`: marked, nothing changed.
 * - A voided or declined sale has no debit to clear or return (`skipped`), nor has a card sale.
 * - A return cancels the refunds held until the debit cleared (Failed, saying why); after a
 *   completed refund it is recorded `afterRefund`, for the merchant to settle with the payor. Once
 *   the debit cleared, its held refunds are being sent (the clearing's follow-up): a return then
 *   waits for them (`held`) and is recorded `afterRefund` when they completed.
 * - Per category: `administrative` closes the method, `unauthorized` revokes it (and suspends its
 *   series payments), both as the notice's follow-up; `nsf` and `other` leave the method as it is.
 */
import type { EventType } from '#contract/events';
import { isBank } from './cards';
import type { Payment, PaymentAttempt } from './group-records';
import { isLate, returnCodeOf, type NoticeFollowUp } from './notices';
import { nextSequence } from './events';
import { parseProfileId, type SavedMethod } from './payors';
import { centsOf, type Series, type SeriesPayment } from './series';
import type { AuthResponse } from './processing';
import type { DebitReturn, Refund, Transaction } from './transactions';

/** The two kinds of a bank debit's notice. */
type BankNoticeKind = 'cleared' | 'returned';

/** What a bank notice does to its sale, as read: apply it now, or why not. */
type BankDecision = { outcome: 'apply' } | { outcome: 'held' | 'stale' | 'skipped'; reason: string };

const not = (outcome: 'held' | 'stale' | 'skipped', reason: string): BankDecision => ({ outcome, reason });

/** Whether `kind` at `sequence` applies to the sale as read (with its refunds), and why not. */
export function bankNoticeDecision(
  kind: BankNoticeKind,
  sequence: number,
  sale: { transaction: Transaction; refunds: readonly Refund[] } | undefined,
): BankDecision {
  if (!sale) return not('held', 'no sale is recorded for it yet');
  const txn = sale.transaction;
  if (txn.status === 'Pending') return not('held', 'its sale is still Pending');
  if (isLate(txn.noticeSeq, sequence)) return not('stale', 'older than the last notice applied to its sale');
  if (txn.status === 'Returned') return not('stale', `its sale was returned already (${txn.return?.code})`);
  if (txn.status !== 'Approved') return not('skipped', `its sale is ${txn.status}: no debit to ${kind}`);
  if (!isBank(txn.accountType)) return not('skipped', 'its sale is not a bank debit');
  if (kind === 'cleared' && txn.cleared === true) return not('stale', 'its sale cleared already');
  if (txn.voidingAt !== undefined) return not('held', 'a void of its sale is under way');
  // A refund held until the debit cleared is in flight once it cleared (its clearing sends it).
  if (
    kind === 'returned' &&
    sale.refunds.some((r) => r.status === 'Pending' && (r.heldUntilCleared !== true || txn.cleared === true))
  )
    return not('held', 'a refund of its sale is in flight');
  return { outcome: 'apply' };
}

/** The return a `returned` notice records on a sale with these refunds. */
export function debitReturn(
  notice: { code: string; reason?: string; returnedAt: string },
  refunds: readonly Refund[],
): DebitReturn {
  const { reason, category } = returnCodeOf(notice.code, notice.reason);
  return {
    code: notice.code,
    reason,
    category,
    returnedAt: notice.returnedAt,
    ...(refunds.some((r) => r.status === 'Completed') && { afterRefund: true as const }),
  };
}

/** The refunds a return cancels: those held until the debit cleared and not sent yet. */
export const refundsCancelledBy = (refunds: readonly Refund[]): Refund[] =>
  refunds.filter((r) => r.status === 'Pending' && r.heldUntilCleared === true);

/** The response code and message of a held refund cancelled by the debit's return. */
export const cancelledRefundOutcome = (
  ret: DebitReturn,
): Pick<Refund, 'status' | 'responseCode' | 'responseMessage'> => ({
  status: 'Failed',
  responseCode: ret.code,
  responseMessage: `Not sent: the debit was returned (${ret.code}, ${ret.reason}) before it cleared`,
});

/** The sale after its clearing (the notice's sequence now its last). */
export const clearedSale = (txn: Transaction, clearedAt: string, sequence: number): Transaction => ({
  ...txn,
  cleared: true,
  clearedAt,
  noticeSeq: sequence,
});

/**
 * The sale after its return: `Returned` with the return; the refunds it cancels no longer count
 * as refunded (nothing more can be refunded of it anyway).
 */
export function returnedSale(
  txn: Transaction,
  ret: DebitReturn,
  sequence: number,
  cancelled: readonly Refund[],
): Transaction {
  const cents = cancelled.reduce((sum, r) => sum + r.amountCents, 0);
  return {
    ...txn,
    status: 'Returned',
    return: ret,
    noticeSeq: sequence,
    refundedCents: txn.refundedCents - cents,
    refundCount: txn.refundCount - cancelled.length,
  };
}

/** The event a bank notice announces: of the payment its sale charged, or of the API's sale. */
export function bankNoticeEventType(kind: BankNoticeKind, ofPayment: boolean): EventType {
  if (ofPayment) return kind === 'cleared' ? 'payment.cleared' : 'payment.returned';
  return kind === 'cleared' ? 'transaction.cleared' : 'transaction.returned';
}

/**
 * The payment after its sale `after` cleared or was returned: its `authResponse` when it is that
 * sale's (a later retry's answer stays), that sale's attempt, and the held refunds the return
 * cancelled (`cancelled`, as after) among its `voidOrRefundResponses`. Undefined when the payment
 * shows none of them (nothing of it changes).
 */
export function paymentAfterNotice(
  payment: Payment,
  after: Transaction,
  now: Date,
  cancelled: readonly Refund[] = [],
): Payment | undefined {
  const id = after.transactionId;
  const auth = payment.authResponse;
  const ownsAuth = auth?.transactionId === id;
  const attempts = payment.attempts;
  const attemptIndex = attempts?.findIndex((a) => a.transactionId === id) ?? -1;
  if (!ownsAuth && attemptIndex < 0) return undefined;
  const next: Payment = { ...payment, lastUpdated: now.toISOString() };
  if (ownsAuth) next.authResponse = authAfter(auth, after);
  if (attempts && attemptIndex >= 0) {
    next.attempts = attempts.map((a, i) => (i === attemptIndex ? attemptAfter(a, after) : a));
  }
  if (payment.voidOrRefundResponses && cancelled.length > 0)
    next.voidOrRefundResponses = payment.voidOrRefundResponses.map((r) => {
      const refund = cancelled.find((c) => r.type === 'Refund' && r.transactionId === c.refundId);
      if (!refund) return r;
      const failed = {
        ...r,
        status: refund.status,
        responseCode: refund.responseCode!,
        responseMessage: refund.responseMessage!,
      };
      delete failed.heldUntilCleared;
      return failed;
    });
  return next;
}

function authAfter(auth: AuthResponse, after: Transaction): AuthResponse {
  // Returned: nothing of it is left to refund (its refund fields, otherwise as at processing time).
  if (after.status === 'Returned')
    return { ...auth, status: 'Returned', return: { ...after.return! }, availableRefundAmount: 0 };
  return { ...auth, cleared: true, clearedAt: after.clearedAt! };
}

const attemptAfter = (a: PaymentAttempt, after: Transaction): PaymentAttempt =>
  after.status === 'Returned' ? { ...a, status: 'Returned', return: { ...after.return! } } : a;

/**
 * The further effect of a return on the sale's saved method, written ahead with the return and
 * done after it: `administrative` closes it, `unauthorized` revokes it; the others leave it. An
 * `nsf` return of a scheduled payment's debit has the payment retried instead.
 */
export function returnFollowUp(txn: Transaction, ret: DebitReturn): NoticeFollowUp | undefined {
  if (ret.category === 'nsf') {
    if (txn.paymentId === undefined || txn.paymentGroupId === undefined) return undefined;
    return {
      kind: 'retry',
      merchantId: txn.merchantId,
      paymentGroupId: txn.paymentGroupId,
      paymentId: txn.paymentId,
      transactionId: txn.transactionId,
    };
  }
  if (ret.category !== 'administrative' && ret.category !== 'unauthorized') return undefined;
  return {
    kind: 'method',
    action: ret.category === 'administrative' ? 'close' : 'revoke',
    merchantId: txn.merchantId,
    payorId: txn.payorId,
    savedPaymentMethodId: txn.savedPaymentMethodId,
    code: ret.code,
    transactionId: txn.transactionId,
  };
}

/**
 * Every further effect of a return, in the order they are done: the method's or the retry's
 * (returnFollowUp), the payment moved into its group's summary, the payor's e-mail.
 */
export function returnFollowUps(txn: Transaction, ret: DebitReturn): NoticeFollowUp[] {
  const first = returnFollowUp(txn, ret);
  const ids = { merchantId: txn.merchantId, transactionId: txn.transactionId };
  return [
    ...(first ? [first] : []),
    ...(txn.paymentId !== undefined && txn.paymentGroupId !== undefined
      ? [
          {
            kind: 'summary' as const,
            ...ids,
            paymentGroupId: txn.paymentGroupId,
            paymentId: txn.paymentId,
          },
        ]
      : []),
    { kind: 'return-email', ...ids, payorId: txn.payorId },
  ];
}

/**
 * The saved method after a return's follow-up: `closed` (administrative) or `revoked`
 * (unauthorized); undefined when it already is (or is revoked, which nothing undoes).
 */
export function methodAfterReturn(
  method: SavedMethod,
  action: 'close' | 'revoke',
  now: Date,
): SavedMethod | undefined {
  const status = action === 'close' ? 'closed' : 'revoked';
  if (method.status === 'revoked' || method.status === status) return undefined;
  return {
    ...method,
    status,
    lastUpdated: now.toISOString(),
    revision: (method.revision ?? 0) + 1,
    eventSeq: (method.eventSeq ?? 0) + 1,
  };
}

/** A series' payments suspended in one write at most (a transaction holds the series, its event and these). */
export const SUSPEND_BATCH = 90;

/**
 * What a revocation does to a series: its payments that name the revoked method and are not
 * suspended yet (the next write's, at most SUSPEND_BATCH), and the series after that write (one
 * revision and one `series.updated` more). Undefined when none is left.
 */
export function seriesSuspension(
  series: Series,
  payments: readonly SeriesPayment[],
  methodId: string,
  now: Date,
): { next: Series; suspend: SeriesPayment[] } | undefined {
  const suspend = payments
    .filter((p) => p.status !== 'suspended' && parseProfileId(p.profileId).savedPaymentMethodId === methodId)
    .slice(0, SUSPEND_BATCH);
  if (suspend.length === 0) return undefined;
  return {
    suspend,
    next: {
      ...series,
      // An occurrence leaves a suspended payment out: its total is the rest's.
      totalCents: series.totalCents - centsOf(suspend),
      revision: series.revision + 1,
      eventSeq: nextSequence(series.eventSeq),
      lastUpdated: now.toISOString(),
    },
  };
}

/**
 * An `nsf` return as the retry rules see it (DESIGN section 6): a `51` decline (category 2)
 * answered when the debit was returned, so that the retry counts from then.
 */
export const nsfAsDecline = (auth: AuthResponse, returnedAt: string): AuthResponse => ({
  ...auth,
  status: 'Declined',
  responseCode: '51',
  declineCategory: '2',
  processedAt: returnedAt,
});
