import { methodView, updatedMethod } from '#domain/payors';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { MethodNotFoundError, methodStore } from '#store/methods';
import { payorStore } from '#store/payors';

/**
 * PUT .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: expiry (cards), billing
 * address, customerData; `setAsDefault: true` makes it the payor's default.
 */
export const handler = merchantRoute(routes.UpdateMethod, async ({ merchant, params, body, now }) => {
  const store = payorStore();
  const payorId = params.PayorID;
  const methodId = params.PaymentMethodID;
  const current = await methodStore().findMethod(payorId, methodId, merchant.merchantId);
  if (!current) throw new MethodNotFoundError(methodId);
  const next = updatedMethod(current, body, now);
  await methodStore().updateMethod(next, body.setAsDefault === true);
  const { payor } = await store.require(payorId, merchant.merchantId);
  return { status: 200, body: methodView(next, payor.defaultPaymentMethodId) };
});
