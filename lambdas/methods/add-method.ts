import { methodView } from '#domain/payors';
import { createMethod } from '#core/methods';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { addMethod, requirePayor } from '#core/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods: adds a method; the default
 * changes only with `setAsDefault: true`.
 */
export const handler = merchantRoute(routes.AddMethod, async ({ merchant, params, body, now }) => {
  await requirePayor(params.PayorID, merchant.merchantId);
  const { method, setAsDefault } = await createMethod({
    raw: body,
    payorId: params.PayorID,
    merchantId: merchant.merchantId,
    now,
  });
  await addMethod(method, setAsDefault, now);
  const { payor } = await requirePayor(params.PayorID, merchant.merchantId);
  return { status: 201, body: methodView(method, payor.defaultPaymentMethodId) };
});
