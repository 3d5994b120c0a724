import { methodView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { MethodNotFoundError, requirePayor } from '#core/payors';

/** GET /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods/{PaymentMethodID} */
export const handler = merchantRoute(routes.GetMethod, async ({ merchant, params }) => {
  const { payor, methods } = await requirePayor(params.PayorID, merchant.merchantId);
  const method = methods.find((m) => m.savedPaymentMethodId === params.PaymentMethodID);
  if (!method) throw new MethodNotFoundError(params.PaymentMethodID);
  return { status: 200, body: methodView(method, payor.defaultPaymentMethodId) };
});
