import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { deleteMethod } from '#core/method-deletion';

/**
 * DELETE .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}[?replaceWith=]: refused for
 * the only method and (409) while pending payments use it, unless they move to `replaceWith`;
 * deleting the default makes the replacement (or the oldest remaining method) the default.
 */
export const handler = merchantRoute(routes.DeleteMethod, async ({ merchant, params, query, now }) => {
  const replaceWith = query.replaceWith?.toLowerCase();
  const methodId = params.PaymentMethodID;
  const outcome = await deleteMethod(params.PayorID, methodId, merchant.merchantId, replaceWith, now);
  if (outcome.status === 'deleted') return { status: 204 };
  return {
    status: 202,
    body: { savedPaymentMethodId: methodId, status: 'deleting', movedCount: outcome.movedCount },
  };
});
