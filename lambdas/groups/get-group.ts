import { groupView } from '#domain/groups';
import { merchantRoute } from '#shared/http';
import { requireGroup } from '#store/groups';

/** GET /rest/merchants/{MID}/groups/{GroupID} */
export const handler = merchantRoute({}, async ({ merchant, params }) => ({
  status: 200,
  body: groupView(await requireGroup(params.GroupID!, merchant.merchantId)),
}));
