import { updatePayment } from '#core/payments';
import { assertSameId, paymentView } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** Refused before the schema, with words the schema cannot give. */
const refuseDeleted = (value: unknown): void => {
  if (value !== null && typeof value === 'object' && 'deleted' in value) {
    throw new BadRequestError('deleted cannot be set by PUT; use DELETE on the payment');
  }
};

/** PUT .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...): full replacement. */
export const handler = merchantRoute(
  routes.UpdatePayment,
  async ({ merchant, params, body, now }) => {
    const groupId = params.GroupID;
    const paymentId = params.PaymentID;
    assertSameId('paymentId', body.paymentId, paymentId);
    assertSameId('paymentGroupId', body.paymentGroupId, groupId);
    const payment = await updatePayment(groupId, paymentId, merchant.merchantId, body, now);
    return { status: 200, body: paymentView(payment) };
  },
  { precheck: refuseDeleted },
);
