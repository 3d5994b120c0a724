import { assertServicePayId, groupView, newGroup, newPayment, paymentView } from '#domain/groups';
import { resolveProfiles, scheduledNotices } from '#core/profiles';
import { merchantRoute } from '#shared/http';
import { newId } from '#shared/ids';
import { createGroupSchema, type CreateGroupInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import { groupStore } from '#store/groups';

const parse = validator<CreateGroupInput>(createGroupSchema);

/**
 * POST /rest/merchants/{MID}/groups: a group and (optionally) its payments, all or nothing, with
 * the payment-scheduled notices of the payments that ask for one.
 */
export const handler = merchantRoute({ body: parse }, async ({ merchant, body, now }) => {
  assertServicePayId(body.servicePayId, merchant);
  const group = newGroup(body, merchant.merchantId, newId(), now);
  const profiles = await resolveProfiles(
    merchant.merchantId,
    (body.payments ?? []).map((p) => p.profileId),
    (i) => `payments[${i}].profileId`,
  );
  const payments = (body.payments ?? []).map((p) => newPayment(p, group, newId(), now));
  group.paymentCount = payments.length;
  group.totalCents = payments.reduce((sum, p) => sum + p.amountCents, 0);
  const notices = await scheduledNotices(payments, group, merchant.name, profiles, now);
  await groupStore().createGroup(group, payments, notices);
  return { status: 201, body: { ...groupView(group), payments: payments.map(paymentView) } };
});
