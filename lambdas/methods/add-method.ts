import { methodView } from '#domain/payors';
import { createMethod } from '#core/methods';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { methodStore } from '#store/methods';
import { payorStore } from '#store/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods: adds a method; the default
 * changes only with `setAsDefault: true`.
 */
export const handler = merchantRoute(routes.AddMethod, async ({ merchant, params, body, now }) => {
  const store = payorStore();
  await store.require(params.PayorID, merchant.merchantId);
  const { method, setAsDefault } = await createMethod({
    raw: body,
    payorId: params.PayorID,
    merchantId: merchant.merchantId,
    now,
  });
  await methodStore().addMethod(method, setAsDefault, now);
  const { payor } = await store.require(params.PayorID, merchant.merchantId);
  return { status: 201, body: methodView(method, payor.defaultPaymentMethodId) };
});
