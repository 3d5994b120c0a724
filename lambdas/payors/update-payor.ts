import { assertSameId } from '#domain/groups';
import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { updatePayor } from '#core/payors';

/** PUT /v1/rest/merchants/{MID}/payors/{PayorID}: fields present are changed. */
export const handler = merchantRoute(routes.UpdatePayor, async ({ merchant, params, body, now }) => {
  assertSameId('payorId', body.payorId, params.PayorID);
  const { payor, methods } = await updatePayor(params.PayorID, merchant.merchantId, body, now);
  return { status: 200, body: payorView(payor, methods) };
});
