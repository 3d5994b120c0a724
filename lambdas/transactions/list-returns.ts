import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { listReturns } from '#core/returns';

/** GET /v1/rest/merchants/{MID}/returns: the merchant's returned bank debits, newest first. */
export const handler = merchantRoute(routes.ListReturns, async ({ merchant, query }) => ({
  status: 200,
  body: await listReturns(merchant.merchantId, query),
}));
