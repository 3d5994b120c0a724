import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { payorStore } from '#store/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/search {customerAccountIds: [...]} (up to 100): the payors
 * found, in the order asked; ids with no payor are left out.
 */
export const handler = merchantRoute(routes.BulkSearchPayors, async ({ merchant, body }) => {
  const store = payorStore();
  const ids = [...new Set(body.customerAccountIds)];
  const found = await Promise.all(
    ids.map(async (id) => {
      const payorId = await store.payorIdByCustomer(merchant.merchantId, id);
      return payorId ? store.find(payorId, merchant.merchantId) : undefined;
    }),
  );
  return {
    status: 200,
    body: found.filter((f) => f !== undefined).map((f) => payorView(f.payor, f.methods)),
  };
});
