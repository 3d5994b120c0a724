import { createGroup } from '#core/groups';
import { assertServicePayId, groupView, paymentView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * POST /rest/merchants/{MID}/groups: a group and (optionally) its payments, all or nothing, with
 * the payment-scheduled notices of the payments that ask for one.
 */
export const handler = merchantRoute(routes.CreateGroup, async ({ merchant, body, now }) => {
  assertServicePayId(body.servicePayId, merchant);
  const { group, payments } = await createGroup(body, merchant, now);
  return { status: 201, body: { ...groupView(group), payments: payments.map(paymentView) } };
});
