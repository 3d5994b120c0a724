import { paymentView } from '#domain/groups';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { requireGroup } from '#core/groups';
import { paymentStore } from '#store/payments';

/** GET .../groups/{GroupID}/payments (alias .../transactions): all payments, deleted included. */
export const handler = merchantRoute(routes.ListPayments, async ({ merchant, params }) => {
  const group = await requireGroup(params.GroupID, merchant.merchantId);
  const payments = await paymentStore().listPayments(group.paymentGroupId);
  return { status: 200, body: payments.map(paymentView) };
});
