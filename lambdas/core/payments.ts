/**
 * Payment changes: each is one conditional transaction on the payment and its group's totals,
 * retried when a concurrent writer changed the payment between read and write; a group that
 * refuses is explained (404, 400 or 503).
 */
import type { AddPaymentInput, UpdatePaymentInput } from '#contract/schemas/payments';
import { newPayment, replacedPayment, type Payment } from '#domain/groups';
import { newId } from '#shared/ids';
import type { Merchant } from '#store/merchants';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { paymentStore } from '#store/payments';
import { explainGroupRejection, explainRetryRejection, requireGroup, requirePayment } from './groups';
import {
  assertUsable,
  methodUnavailable,
  payorsOf,
  resolveProfiles,
  sameMethod,
  scheduledNotices,
  withSponsorKey,
} from './profiles';

/** A new payment of a pending group, with its payment-scheduled notice when it asks for one. */
export async function addPayment(
  groupId: string,
  merchant: Merchant,
  input: AddPaymentInput,
  now: Date,
  keyed?: { resourceId: string; resumed: boolean },
): Promise<Payment> {
  if (keyed?.resumed) {
    // The key's first request died: after its write (answer that payment) or before (add it now).
    const written = await paymentStore().getPayment(groupId, keyed.resourceId);
    if (written && written.merchantId === merchant.merchantId) return written;
  }
  const profiles = await resolveProfiles(merchant.merchantId, [input.profileId]);
  const payors = await payorsOf(merchant.merchantId, [input]);
  const payment = withSponsorKey(
    newPayment(
      input,
      { paymentGroupId: groupId, merchantId: merchant.merchantId },
      keyed?.resourceId ?? newId(),
      now,
    ),
    payors,
  );
  return withOptimisticRetry(async () => {
    // The notice names the slot: read the group for it only when a notice is asked for. The add
    // holds only while the group is still at that slot; a reschedule in between is a lost race.
    const group = payment.sendPaymentScheduledNotification
      ? await requireGroup(groupId, merchant.merchantId)
      : undefined;
    const notices = group ? scheduledNotices([payment], group, merchant.name, profiles, payors, now) : [];
    const outcome = await paymentStore().addPayment(
      payment,
      now,
      notices,
      notices.length > 0 ? group : undefined,
    );
    if (outcome === 'ok') return payment;
    if (outcome === 'method-unavailable') throw methodUnavailable('profileId', input.profileId);
    // The group is missing, not this merchant's, no longer pending or full: say which; else retry.
    await explainGroupRejection(groupId, merchant.merchantId);
    return undefined;
  });
}

/** Full replacement of a payment of a pending group. */
export async function updatePayment(
  groupId: string,
  paymentId: string,
  merchantId: string,
  input: UpdatePaymentInput,
  now: Date,
): Promise<Payment> {
  const found = await resolveProfiles(merchantId, [input.profileId], undefined, true);
  // A replacement is written as new: with the sponsorKey its payor has now.
  const payors = await payorsOf(merchantId, [input]);
  return withOptimisticRetry(async () => {
    const previous = await requirePayment(groupId, paymentId, merchantId);
    // A payment that keeps its method may change (its amount, its attributes...) whatever the
    // method's status, to be declined at the slot as before unless it is given another; a payment
    // given another method may not take one that is closed, in question or revoked.
    if (!sameMethod(previous.profileId, input.profileId)) assertUsable(found, input.profileId);
    const next = withSponsorKey(replacedPayment(previous, input, now), payors);
    const outcome = await paymentStore().replacePayment(previous, next, now);
    if (outcome === 'ok') return next;
    if (outcome === 'method-unavailable') throw methodUnavailable('profileId', input.profileId);
    if (outcome === 'group-not-editable') await explainGroupRejection(groupId, merchantId);
    return undefined;
  });
}

/**
 * Soft delete: the payment stays listed with deleted=true and is never processed. Idempotent. A
 * payment of a processed group whose retry is scheduled can be deleted too: its retry is cancelled
 * (`not_retried`, payment_deleted) and never charged; while a retry round of its group is
 * charging, 400 (delete it again once the round is done, within minutes).
 */
export async function deletePayment(
  groupId: string,
  paymentId: string,
  merchantId: string,
  now: Date,
): Promise<void> {
  await withOptimisticRetry(async () => {
    const previous = await requirePayment(groupId, paymentId, merchantId);
    if (previous.deleted) return true;
    const retrying = previous.retry?.status === 'scheduled';
    const store = paymentStore();
    const outcome = retrying
      ? await store.deleteScheduledRetry(previous, now)
      : await store.softDeletePayment(previous, now);
    if (outcome === 'ok') return true;
    if (outcome === 'group-not-editable') {
      if (retrying) await explainRetryRejection(groupId, merchantId);
      else await explainGroupRejection(groupId, merchantId);
    }
    return undefined;
  });
}
