import { assertSameId, newPayment, paymentView } from '#domain/groups';
import { resolveProfiles, scheduledNotices } from '#core/profiles';
import { merchantRoute } from '#shared/http';
import { newId } from '#shared/ids';
import { addPaymentSchema, type AddPaymentInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import { explainGroupRejection, groupStore, requireGroup } from '#store/groups';

const parse = validator<AddPaymentInput>(addPaymentSchema);

/** POST .../groups/{GroupID}/payments (alias .../transactions) */
export const handler = merchantRoute({ body: parse }, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID!;
  assertSameId('paymentGroupId', body.paymentGroupId, groupId);
  const profiles = await resolveProfiles(merchant.merchantId, [body.profileId]);
  const payment = newPayment(
    body,
    { paymentGroupId: groupId, merchantId: merchant.merchantId },
    newId(),
    now,
  );
  // The notice names the slot: read the group for it only when a notice is asked for.
  const group = payment.sendPaymentScheduledNotification
    ? await requireGroup(groupId, merchant.merchantId)
    : undefined;
  const notices = group ? await scheduledNotices([payment], group, merchant.name, profiles, now) : [];
  const outcome = await groupStore().addPayment(
    payment,
    now,
    notices,
    notices.length > 0 ? group : undefined,
  );
  // The group is missing, not this merchant's, or no longer pending: say which.
  if (outcome !== 'ok') await explainGroupRejection(groupId, merchant.merchantId);
  return { status: 201, body: paymentView(payment) };
});
