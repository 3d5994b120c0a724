/**
 * Giving up on a scheduled payment's charge without ever leaving money behind: if the sale was
 * recorded, that record is the answer; otherwise the processor reverses whatever may have
 * happened under the payment's key (timeout reversal) before the payment is called Failed.
 */
import { failedAuthResponse, saleAuthResponse, type AuthResponse } from '#domain/processing';
import type { Payment } from '#domain/groups';
import { transactionView } from '#domain/transactions';
import { paymentProcessor } from '#processor/index';
import { transactionStore } from '#store/transactions';

export async function giveUpOnCharge(
  payment: Payment,
  transactionId: string,
  merchantId: string,
  reason: string,
): Promise<AuthResponse> {
  const recorded = await transactionStore().find(transactionId);
  if (recorded) return saleAuthResponse(transactionView(recorded.transaction, recorded.refunds, new Date()));
  // Throws if the processor cannot be reached either: the state machine then retries the step.
  await paymentProcessor().reverseUnanswered({ idempotencyKey: `payment:${payment.paymentId}`, merchantId });
  return failedAuthResponse(payment, reason, new Date());
}
