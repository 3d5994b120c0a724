import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requirePayor } from '#core/payors';

/** GET /v1/rest/merchants/{MID}/payors/{PayorID} */
export const handler = merchantRoute(routes.GetPayor, async ({ merchant, params }) => {
  const { payor, methods } = await requirePayor(params.PayorID, merchant.merchantId);
  return { status: 200, body: payorView(payor, methods) };
});
