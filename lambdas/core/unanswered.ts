/**
 * Giving up on a scheduled payment's charge without ever leaving money behind (core/sale.ts
 * `giveUpSale`): a Declined 96 record goes first, conditionally on the sale being absent or
 * Pending, so that an invocation still between approval and its record loses; then the processor
 * reverses whatever may have happened under the payment's key (timeout reversal), now or, when it
 * cannot be reached, from the sweeper. If the sale already had an answer, that is the answer.
 */
import { failedAuthResponse, saleAuthResponse, type AuthResponse } from '#domain/processing';
import type { Payment } from '#domain/groups';
import { transactionView } from '#domain/transactions';
import { giveUpSale } from './sale';

export async function giveUpOnCharge(
  payment: Payment,
  transactionId: string,
  merchantId: string,
  reason: string,
  options: { reverse?: 'now' | 'later' } = {},
): Promise<AuthResponse> {
  const now = new Date();
  const { transaction, abandoned } = await giveUpSale(
    {
      transactionId,
      processorKey: `payment:${payment.paymentId}`,
      merchantId,
      profileId: payment.profileId,
      amountCents: payment.amountCents,
      allowPartial: payment.allowPartial ?? false,
      ...(payment.orderId !== undefined && { orderId: payment.orderId }),
      paymentId: payment.paymentId,
    },
    reason,
    now,
    options,
  );
  if (!abandoned) return saleAuthResponse(transactionView(transaction, [], now));
  return failedAuthResponse(payment, reason, now);
}
