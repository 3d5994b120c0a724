import { paymentView } from '#domain/groups';
import { merchantRoute } from '#shared/http';
import { groupStore, requireGroup } from '#store/groups';

/** GET .../groups/{GroupID}/payments (alias .../transactions): all payments, deleted included. */
export const handler = merchantRoute({}, async ({ merchant, params }) => {
  const group = await requireGroup(params.GroupID!, merchant.merchantId);
  const payments = await groupStore().listPayments(group.paymentGroupId);
  return { status: 200, body: payments.map(paymentView) };
});
