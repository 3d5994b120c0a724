import * as routes from '#generated/validators';
import { paymentViews } from '#core/expiring';
import { merchantRoute } from '#core/merchants';
import { requireGroup, requirePayment } from '#core/groups';

/**
 * GET .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...); a pending group's
 * payment flagged `methodExpiresBeforeSlot` when its card expires before the slot.
 */
export const handler = merchantRoute(routes.GetPayment, async ({ merchant, params }) => {
  const payment = await requirePayment(params.GroupID, params.PaymentID, merchant.merchantId);
  const group = await requireGroup(params.GroupID, merchant.merchantId);
  const [view] = await paymentViews(group, [payment]);
  return { status: 200, body: view! };
});
