import { methodView, updatedMethod } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { changeMethod, requireMethod, requirePayor } from '#core/payors';

/**
 * PUT .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: expiry (cards), billing
 * address, customerData; `setAsDefault: true` makes it the payor's default.
 */
export const handler = merchantRoute(routes.UpdateMethod, async ({ merchant, params, body, now }) => {
  const current = await requireMethod(params.PayorID, params.PaymentMethodID, merchant.merchantId);
  const next = updatedMethod(current, body, now);
  await changeMethod(next, body.setAsDefault === true);
  const { payor } = await requirePayor(params.PayorID, merchant.merchantId);
  return { status: 200, body: methodView(next, payor.defaultPaymentMethodId) };
});
