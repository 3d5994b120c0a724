import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { listDisputes } from '#core/dispute-list';

/** GET /v1/rest/merchants/{MID}/disputes: the merchant's card disputes, newest first. */
export const handler = merchantRoute(routes.ListDisputes, async ({ merchant, query }) => ({
  status: 200,
  body: await listDisputes(merchant.merchantId, query),
}));
