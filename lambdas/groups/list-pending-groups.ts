import * as routes from '#generated/validators';
import { listGroups } from '#core/lists';
import { merchantRoute } from '#core/merchants';

/** GET /rest/merchants/{MID}: groups not deleted and not yet processed (pending or processing). */
export const handler = merchantRoute(routes.ListPendingGroups, async ({ merchant, query }) => ({
  status: 200,
  body: await listGroups(merchant.merchantId, query, true),
}));
