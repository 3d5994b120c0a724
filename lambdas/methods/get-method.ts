import { methodView } from '#domain/payors';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { MethodNotFoundError } from '#store/methods';
import { payorStore } from '#store/payors';

/** GET /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods/{PaymentMethodID} */
export const handler = merchantRoute(routes.GetMethod, async ({ merchant, params }) => {
  const { payor, methods } = await payorStore().require(params.PayorID, merchant.merchantId);
  const method = methods.find((m) => m.savedPaymentMethodId === params.PaymentMethodID);
  if (!method) throw new MethodNotFoundError(params.PaymentMethodID);
  return { status: 200, body: methodView(method, payor.defaultPaymentMethodId) };
});
