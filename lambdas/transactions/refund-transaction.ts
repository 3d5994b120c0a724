import { idempotent } from '#core/idempotency';
import { refundSale } from '#core/reversals';
import { fromCents, toCents } from '#domain/money';
import { availableRefundCents, refundView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { newId } from '#shared/ids';

/**
 * POST /v1/rest/merchants/{MID}/transactions/{TransactionID}/refunds {amount, idempotencyKey?}:
 * 201 with the refund and the sale's remaining availableRefundAmount.
 */
export const handler = merchantRoute(routes.RefundTransaction, async ({ merchant, params, body, now }) => {
  const transactionId = params.TransactionID;
  const ref = body.idempotencyKey
    ? { merchantId: merchant.merchantId, scope: `refund:${transactionId}`, key: body.idempotencyKey }
    : undefined;
  return idempotent(ref, body, newId(), now, async (refundId) => {
    const { refund, transaction } = await refundSale(
      merchant.merchantId,
      transactionId,
      toCents(body.amount),
      refundId,
      now,
    );
    return {
      status: 201,
      body: { ...refundView(refund), availableRefundAmount: fromCents(availableRefundCents(transaction)) },
    };
  });
});
