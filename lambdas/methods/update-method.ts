import { methodView, updatedMethod } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { changeMethod, MethodNotFoundError, requirePayor } from '#core/payors';
import { methodStore } from '#store/methods';

/**
 * PUT .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: expiry (cards), billing
 * address, customerData; `setAsDefault: true` makes it the payor's default.
 */
export const handler = merchantRoute(routes.UpdateMethod, async ({ merchant, params, body, now }) => {
  const payorId = params.PayorID;
  const methodId = params.PaymentMethodID;
  const current = await methodStore().findMethod(payorId, methodId, merchant.merchantId);
  if (!current) throw new MethodNotFoundError(methodId);
  const next = updatedMethod(current, body, now);
  await changeMethod(next, body.setAsDefault === true);
  const { payor } = await requirePayor(payorId, merchant.merchantId);
  return { status: 200, body: methodView(next, payor.defaultPaymentMethodId) };
});
