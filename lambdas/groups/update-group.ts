import { assertSameId, assertServicePayId, groupView, updatedGroup } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#shared/http';
import { updateGroupSchema, type UpdateGroupInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import { groupStore, requireGroup } from '#store/groups';

const schema = validator<UpdateGroupInput>(updateGroupSchema);
const parse = (value: unknown): UpdateGroupInput => {
  if (value !== null && typeof value === 'object' && 'deleted' in value) {
    throw new BadRequestError('deleted cannot be set by PUT; use DELETE on the group');
  }
  return schema(value);
};

/**
 * PUT /rest/merchants/{MID}/groups/{GroupID}: fields present are changed. A processing or
 * processed group is returned unchanged (docs/product.md#updating-a-group).
 */
export const handler = merchantRoute({ body: parse }, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID!;
  assertSameId('paymentGroupId', body.paymentGroupId, groupId);
  assertServicePayId(body.servicePayId, merchant);
  // A concurrent processing claim between read and write turns the update into the ignored case.
  for (;;) {
    const group = await requireGroup(groupId, merchant.merchantId);
    const next = updatedGroup(group, body, now);
    if (!next) return { status: 200, body: groupView(group) };
    const stored = await groupStore().updateSettings(next);
    if (stored) return { status: 200, body: groupView(stored) };
  }
});
