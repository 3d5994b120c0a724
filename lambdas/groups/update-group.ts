import { updateGroup } from '#core/groups';
import { assertSameId, assertServicePayId, groupView } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** Refused before the schema, with words the schema cannot give. */
const refuseDeleted = (value: unknown): void => {
  if (value !== null && typeof value === 'object' && 'deleted' in value) {
    throw new BadRequestError('deleted cannot be set by PUT; use DELETE on the group');
  }
};

/**
 * PUT /rest/merchants/{MID}/groups/{GroupID}: fields present are changed. A processing or
 * processed group is returned unchanged (docs/product.md#updating-a-group).
 */
export const handler = merchantRoute(
  routes.UpdateGroup,
  async ({ merchant, params, body, now }) => {
    const groupId = params.GroupID;
    assertSameId('paymentGroupId', body.paymentGroupId, groupId);
    assertServicePayId(body.servicePayId, merchant);
    return { status: 200, body: groupView(await updateGroup(groupId, merchant.merchantId, body, now)) };
  },
  { precheck: refuseDeleted },
);
