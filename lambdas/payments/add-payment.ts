import { addPayment } from '#core/payments';
import { assertSameId, paymentView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** POST .../groups/{GroupID}/payments (alias .../transactions) */
export const handler = merchantRoute(routes.AddPayment, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID;
  assertSameId('paymentGroupId', body.paymentGroupId, groupId);
  const payment = await addPayment(groupId, merchant, body, now);
  return { status: 201, body: paymentView(payment) };
});
