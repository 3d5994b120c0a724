import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { fitting } from '#core/answer-size';
import { merchantRoute } from '#core/merchants';
import { findByCustomer } from '#core/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/search {customerAccountIds: [...]} (up to 100): the payors
 * found, in the order asked; ids with no payor are left out. Payors with large customerData may
 * pass Lambda's response limit together: a 400 then says to ask for fewer.
 */
export const handler = merchantRoute(routes.BulkSearchPayors, async ({ merchant, body }) => {
  const ids = [...new Set(body.customerAccountIds)];
  const found = await Promise.all(ids.map((id) => findByCustomer(merchant.merchantId, id)));
  const payors = found.filter((f) => f !== undefined).map((f) => payorView(f.payor, f.methods));
  return { status: 200, body: fitting(payors, 'search for fewer customerAccountIds at a time') };
});
