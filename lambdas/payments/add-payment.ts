import { addPayment } from '#core/payments';
import { assertSameId, paymentView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * POST .../groups/{GroupID}/payments (alias .../transactions). Keyed, the payment's id is the
 * key's: a retry resuming an add that died after its write answers that payment.
 */
export const handler = merchantRoute(
  routes.AddPayment,
  async ({ merchant, params, body, now, idempotency }) => {
    const groupId = params.GroupID;
    assertSameId('paymentGroupId', body.paymentGroupId, groupId);
    const payment = await addPayment(groupId, merchant, body, now, idempotency);
    return { status: 201, body: paymentView(payment) };
  },
);
