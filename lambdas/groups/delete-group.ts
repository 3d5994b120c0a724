import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#shared/http';
import { groupStore, requireGroup } from '#store/groups';

/**
 * DELETE /rest/merchants/{MID}/groups/{GroupID}: cancels a pending group (soft delete; the
 * group and its payments stay readable). Deleting a deleted group again is a no-op 204.
 */
export const handler = merchantRoute({}, async ({ merchant, params, now }) => {
  const groupId = params.GroupID!;
  for (;;) {
    const group = await requireGroup(groupId, merchant.merchantId);
    if (group.status === 'deleted') return { status: 204 };
    if (group.status === 'processing')
      throw new BadRequestError(`payment group ${groupId} is being processed`);
    if (group.status === 'processed') {
      throw new BadRequestError(
        `payment group ${groupId} has already been processed; use void-or-refund instead`,
      );
    }
    if (await groupStore().markDeleted(groupId, now)) return { status: 204 };
  }
});
