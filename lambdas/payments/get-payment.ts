import { paymentView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requirePayment } from '#core/groups';

/** GET .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...) */
export const handler = merchantRoute(routes.GetPayment, async ({ merchant, params }) => ({
  status: 200,
  body: paymentView(await requirePayment(params.GroupID, params.PaymentID, merchant.merchantId)),
}));
