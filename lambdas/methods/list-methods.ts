import { methodView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requirePayor } from '#core/payors';

/** GET /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods */
export const handler = merchantRoute(routes.ListMethods, async ({ merchant, params }) => {
  const { payor, methods } = await requirePayor(params.PayorID, merchant.merchantId);
  return { status: 200, body: methods.map((m) => methodView(m, payor.defaultPaymentMethodId)) };
});
