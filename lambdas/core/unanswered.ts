/**
 * Giving up on a scheduled payment's charge without ever leaving money behind (core/sale.ts
 * `giveUpSale`): a Declined 96 record goes first, conditionally on the sale being absent or
 * Pending, so that an invocation still between approval and its record loses; then the processor
 * reverses whatever may have happened under the attempt's key (timeout reversal), now or, when it
 * cannot be reached, from the sweeper. If the sale already had an answer, that is the answer.
 */
import { failedAuthResponse, saleAuthResponse } from '#domain/processing';
import type { Payment } from '#domain/groups';
import { processorKeys } from '#domain/processor-keys';
import { transactionView } from '#domain/transactions';
import { attemptTransactionId } from '#shared/ids';
import type { AttemptResult } from './attempts';
import { giveUpSale } from './sale';
import { clock } from '#shared/clock';

export async function giveUpOnCharge(
  payment: Payment,
  attempt: number,
  merchantId: string,
  reason: string,
  options: { reverse?: 'now' | 'later' } = {},
): Promise<AttemptResult> {
  const now = clock.now();
  const { transaction, abandoned } = await giveUpSale(
    {
      transactionId: attemptTransactionId(payment.paymentId, attempt),
      processorKey: processorKeys.payment(payment.paymentId, attempt),
      merchantId,
      profileId: payment.profileId,
      amountCents: payment.amountCents,
      allowPartial: payment.allowPartial ?? false,
      ...(payment.orderId !== undefined && { orderId: payment.orderId }),
      ...(payment.sponsorKey !== undefined && { sponsorKey: payment.sponsorKey }),
      paymentId: payment.paymentId,
      paymentGroupId: payment.paymentGroupId,
      attempt,
    },
    reason,
    now,
    options,
  );
  if (!abandoned) return { auth: saleAuthResponse(transactionView(transaction, [], now)), txn: transaction };
  return { auth: failedAuthResponse(payment, reason, now), txn: transaction };
}
