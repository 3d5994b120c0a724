import * as routes from '#generated/validators';
import { listGroups } from '#core/lists';
import { merchantRoute } from '#core/merchants';

/** GET /rest/merchants/{MID}/groups: groups in every stage. */
export const handler = merchantRoute(routes.ListGroups, async ({ merchant, query }) => ({
  status: 200,
  body: await listGroups(merchant.merchantId, query, false),
}));
