import { methodView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requirePayor, updateMethod } from '#core/payors';

/**
 * PUT .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: expiry (cards), billing
 * address, customerData; `setAsDefault: true` makes it the payor's default.
 */
export const handler = merchantRoute(routes.UpdateMethod, async ({ merchant, params, body, now }) => {
  const method = await updateMethod(params.PayorID, params.PaymentMethodID, merchant.merchantId, body, now);
  const { payor } = await requirePayor(params.PayorID, merchant.merchantId);
  return { status: 200, body: methodView(method, payor.defaultPaymentMethodId) };
});
