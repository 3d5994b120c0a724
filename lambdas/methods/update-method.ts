import { methodView, updatedMethod } from '#domain/payors';
import { merchantRoute } from '#shared/http';
import { updateMethodSchema, type UpdateMethodInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import { MethodNotFoundError, payorStore } from '#store/payors';

const parse = validator<UpdateMethodInput>(updateMethodSchema);

/**
 * PUT .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: expiry (cards), billing
 * address, customerData; `setAsDefault: true` makes it the payor's default.
 */
export const handler = merchantRoute({ body: parse }, async ({ merchant, params, body, now }) => {
  const store = payorStore();
  const payorId = params.PayorID!;
  const methodId = params.PaymentMethodID!;
  const current = await store.findMethod(payorId, methodId, merchant.merchantId);
  if (!current) throw new MethodNotFoundError(methodId);
  const next = updatedMethod(current, body, now);
  await store.updateMethod(next, body.setAsDefault === true);
  const { payor } = await store.require(payorId, merchant.merchantId);
  return { status: 200, body: methodView(next, payor.defaultPaymentMethodId) };
});
