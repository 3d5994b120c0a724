import { deleteGroup } from '#core/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * DELETE /rest/merchants/{MID}/groups/{GroupID}: cancels a pending group (soft delete; the
 * group and its payments stay readable). Deleting a deleted group again is a no-op 204.
 */
export const handler = merchantRoute(routes.DeleteGroup, async ({ merchant, params, now }) => {
  const groupId = params.GroupID;
  await deleteGroup(groupId, merchant.merchantId, now);
  return { status: 204 };
});
