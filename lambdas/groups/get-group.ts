import { groupView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requireGroup } from '#core/groups';

/** GET /rest/merchants/{MID}/groups/{GroupID} */
export const handler = merchantRoute(routes.GetGroup, async ({ merchant, params }) => ({
  status: 200,
  body: groupView(await requireGroup(params.GroupID, merchant.merchantId)),
}));
