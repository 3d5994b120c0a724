import { deletePayment } from '#core/payments';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * DELETE .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...): soft delete;
 * the payment stays listed with deleted=true and is never processed. Repeating it is a no-op.
 */
export const handler = merchantRoute(routes.DeletePayment, async ({ merchant, params, now }) => {
  const groupId = params.GroupID;
  const paymentId = params.PaymentID;
  await deletePayment(groupId, paymentId, merchant.merchantId, now);
  return { status: 204 };
});
