import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { payorStore } from '#store/payors';

/** GET /v1/rest/merchants/{MID}/payors?customerAccountId=: an array of 0 or 1 payor. */
export const handler = merchantRoute(routes.SearchPayors, async ({ merchant, query }) => {
  const { customerAccountId } = query;
  const store = payorStore();
  const payorId = await store.payorIdByCustomer(merchant.merchantId, customerAccountId);
  const found = payorId ? await store.find(payorId, merchant.merchantId) : undefined;
  return { status: 200, body: found ? [payorView(found.payor, found.methods)] : [] };
});
