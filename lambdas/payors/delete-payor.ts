import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { deletePayor } from '#core/method-deletion';

/**
 * DELETE /v1/rest/merchants/{MID}/payors/{PayorID}: removes the payor, its saved methods and its
 * customerAccountId; refused (409, the payments listed) while pending payments use its methods.
 */
export const handler = merchantRoute(routes.DeletePayor, async ({ merchant, params, now }) => {
  await deletePayor(params.PayorID, merchant.merchantId, now);
  return { status: 204 };
});
