import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { findByCustomer } from '#core/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/search {customerAccountIds: [...]} (up to 100): the payors
 * found, in the order asked; ids with no payor are left out.
 */
export const handler = merchantRoute(routes.BulkSearchPayors, async ({ merchant, body }) => {
  const ids = [...new Set(body.customerAccountIds)];
  const found = await Promise.all(ids.map((id) => findByCustomer(merchant.merchantId, id)));
  return {
    status: 200,
    body: found.filter((f) => f !== undefined).map((f) => payorView(f.payor, f.methods)),
  };
});
