import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { findByCustomer } from '#core/payors';

/** GET /v1/rest/merchants/{MID}/payors?customerAccountId=: an array of 0 or 1 payor. */
export const handler = merchantRoute(routes.SearchPayors, async ({ merchant, query }) => {
  const found = await findByCustomer(merchant.merchantId, query.customerAccountId);
  return { status: 200, body: found ? [payorView(found.payor, found.methods)] : [] };
});
