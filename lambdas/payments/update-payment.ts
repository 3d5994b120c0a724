import { assertSameId, paymentView, replacedPayment } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import { resolveProfiles } from '#core/profiles';
import { merchantRoute } from '#shared/http';
import { updatePaymentSchema, type UpdatePaymentInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import {
  explainGroupRejection,
  groupStore,
  MAX_ATTEMPTS,
  requirePayment,
  tooMuchContention,
} from '#store/groups';

const schema = validator<UpdatePaymentInput>(updatePaymentSchema);
const parse = (value: unknown): UpdatePaymentInput => {
  if (value !== null && typeof value === 'object' && 'deleted' in value) {
    throw new BadRequestError('deleted cannot be set by PUT; use DELETE on the payment');
  }
  return schema(value);
};

/** PUT .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...): full replacement. */
export const handler = merchantRoute({ body: parse }, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID!;
  const paymentId = params.PaymentID!;
  assertSameId('paymentId', body.paymentId, paymentId);
  assertSameId('paymentGroupId', body.paymentGroupId, groupId);
  await resolveProfiles(merchant.merchantId, [body.profileId]);
  // Optimistic: retried when a concurrent writer changed the payment between read and write.
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const previous = await requirePayment(groupId, paymentId, merchant.merchantId);
    const next = replacedPayment(previous, body, now);
    const outcome = await groupStore().replacePayment(previous, next, now);
    if (outcome === 'ok') return { status: 200, body: paymentView(next) };
    if (outcome === 'group-not-editable') await explainGroupRejection(groupId, merchant.merchantId);
  }
  return tooMuchContention();
});
