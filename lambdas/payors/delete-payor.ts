import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { deletePayor } from '#core/payors';

/**
 * DELETE /v1/rest/merchants/{MID}/payors/{PayorID}: removes the payor, its saved methods and its
 * customerAccountId. Scheduled payments that still name one of its methods are declined at
 * processing (category 1, "Payment method no longer exists").
 */
export const handler = merchantRoute(routes.DeletePayor, async ({ merchant, params }) => {
  await deletePayor(params.PayorID, merchant.merchantId);
  return { status: 204 };
});
