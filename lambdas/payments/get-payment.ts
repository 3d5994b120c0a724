import { paymentView } from '#domain/groups';
import { merchantRoute } from '#shared/http';
import { requirePayment } from '#store/groups';

/** GET .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...) */
export const handler = merchantRoute({}, async ({ merchant, params }) => ({
  status: 200,
  body: paymentView(await requirePayment(params.GroupID!, params.PaymentID!, merchant.merchantId)),
}));
