import { refundTransaction } from '#core/reversals';
import { fromCents, toCents } from '#domain/money';
import { availableRefundCents, refundView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { newId } from '#shared/ids';

/**
 * POST /v1/rest/merchants/{MID}/transactions/{TransactionID}/refunds {amount, idempotencyKey?}:
 * 201 with the refund and the sale's remaining availableRefundAmount.
 */
export const handler = merchantRoute(
  routes.RefundTransaction,
  async ({ merchant, params, body, now, idempotency }) => {
    const transactionId = params.TransactionID;
    // Keyed, the refund's id is the key's, so that a resumed retry finds its reservation.
    const refundId = idempotency?.resourceId ?? newId();
    const { refund, transaction } = await refundTransaction(
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
  },
);
