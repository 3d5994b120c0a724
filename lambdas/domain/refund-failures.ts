/**
 * A refund that failed after the processor accepted it (docs/product.md "Voids and refunds";
 * Stripe: a refund `failed` or `canceled` after it was `succeeded` or `pending`): plain rules, no
 * AWS. The service records a refund the processor accepted as Completed (the money left the
 * merchant); the processor's `refund_failed` notice moves it to Failed, saying why, and gives its
 * amount back to its sale (and to the scheduled payment it reversed), as a refund refused at once.
 *
 * - It applies to a Completed refund only. No sale or no refund recorded yet (a webhook that beat
 *   the refund's answer), or a refund still Pending (its answer not recorded yet), is `held`: kept
 *   and tried again when the record appears (core/notices.ts).
 * - A refund already Failed changes nothing (`stale`): the same failure comes as several events.
 */
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import type { Payment } from './group-records';
import type { Refund, Transaction } from './transactions';

type RefundFailureDecision =
  { outcome: 'apply'; refund: Refund } | { outcome: 'held' | 'stale' | 'skipped'; reason: string };

/** Whether a failure of refund `refundId` applies to its sale as read (with its refunds), and why not. */
export function refundFailureDecision(
  sale: { transaction: Transaction; refunds: readonly Refund[] } | undefined,
  refundId: string,
  merchantId: string,
): RefundFailureDecision {
  if (!sale) return { outcome: 'held', reason: 'no sale is recorded for it yet' };
  if (sale.transaction.merchantId !== merchantId)
    return { outcome: 'skipped', reason: 'its sale is of another merchant' };
  const refund = sale.refunds.find((r) => r.refundId === refundId);
  if (!refund) return { outcome: 'held', reason: 'no refund is recorded for it yet' };
  if (refund.status === 'Pending')
    return { outcome: 'held', reason: 'its refund is still Pending (its answer is not recorded yet)' };
  if (refund.status === 'Failed') return { outcome: 'stale', reason: 'its refund is Failed already' };
  return { outcome: 'apply', refund };
}

/** The outcome a refund failed after it was accepted ends with: the processor's reason in its words. */
export const failedAfterAcceptance = (
  reason: string,
): Pick<Refund, 'status' | 'responseCode' | 'responseMessage'> => ({
  status: 'Failed',
  responseCode: '05',
  responseMessage: `Failed after the processor accepted it: the money did not reach the cardholder (${reason})`,
});

/**
 * The scheduled payment once its refund failed: the refund's response among its
 * voidOrRefundResponses Failed, with the refund's code and message. Undefined when the payment
 * shows no such refund, or shows it Failed already.
 */
export function paymentAfterRefundFailure(payment: Payment, failed: Refund, now: Date): Payment | undefined {
  const responses = payment.voidOrRefundResponses ?? [];
  const same = (r: VoidOrRefundResponse) => r.type === 'Refund' && r.transactionId === failed.refundId;
  if (!responses.some((r) => same(r) && r.status !== 'Failed')) return undefined;
  return {
    ...payment,
    lastUpdated: now.toISOString(),
    voidOrRefundResponses: responses.map((r) =>
      same(r)
        ? {
            ...r,
            status: 'Failed',
            responseCode: failed.responseCode!,
            responseMessage: failed.responseMessage!,
          }
        : r,
    ),
  };
}

/**
 * The sequence of the refund's `refund.failed`: a refund of the transactions API was announced
 * Completed (`refund.completed`, 1) before; a scheduled payment's was announced on its payment.
 */
export const refundFailureSequence = (txn: Transaction): number => (txn.paymentId === undefined ? 2 : 1);
