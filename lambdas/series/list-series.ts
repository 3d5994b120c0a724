import { listSeries } from '#core/series-list';
import { merchantRoute } from '#core/merchants';
import * as routes from '#generated/validators';

/** GET /rest/merchants/{MID}/series: the merchant's series, oldest first. */
export const handler = merchantRoute(routes.ListSeries, async ({ merchant, query }) => ({
  status: 200,
  body: await listSeries(merchant.merchantId, query),
}));
