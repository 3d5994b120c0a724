/**
 * Group and payment lookups and changes as the API sees them: a group or payment of another
 * merchant is not found (no existence leak), a refused conditional write is explained with the
 * error the client can act on, and optimistic races are retried.
 */
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import type { CreateGroupInput, UpdateGroupInput } from '#contract/schemas/groups';
import {
  assertPaymentsEditable,
  newGroupWithPayments,
  updatedGroup,
  type Group,
  type Payment,
} from '#domain/groups';
import {
  BadRequestError,
  GroupNotFoundError,
  PaymentNotFoundError,
  ServiceUnavailableError,
} from '#shared/errors';
import { newId } from '#shared/ids';
import type { Merchant } from '#shared/merchants';
import { withOptimisticRetry } from '#shared/retry';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import { resolveProfiles, scheduledNotices } from './profiles';

/** The group if it exists and belongs to this merchant; 404 otherwise. */
export async function requireGroup(groupId: string, merchantId: string): Promise<Group> {
  const group = await groupStore().getGroup(groupId);
  if (!group || group.merchantId !== merchantId) throw new GroupNotFoundError(groupId);
  return group;
}

/** The payment if it exists under this merchant and group; 404 otherwise. */
export async function requirePayment(
  groupId: string,
  paymentId: string,
  merchantId: string,
): Promise<Payment> {
  const payment = await paymentStore().getPayment(groupId, paymentId);
  if (!payment || payment.merchantId !== merchantId) throw new PaymentNotFoundError(paymentId);
  return payment;
}

/**
 * Throws the error that explains why a group refused a payment change: 404 when it is not this
 * merchant's, 400 when it is not pending or full, 503 when it changed back and forth under us.
 */
export async function explainGroupRejection(groupId: string, merchantId: string): Promise<never> {
  const group = await requireGroup(groupId, merchantId);
  assertPaymentsEditable(group);
  if (group.paymentCount >= MAX_PAYMENTS_PER_GROUP) {
    throw new BadRequestError(`a group holds at most ${MAX_PAYMENTS_PER_GROUP} payments`);
  }
  throw new ServiceUnavailableError('the group changed concurrently; retry the request');
}

/**
 * A new group with its payments, all or nothing, with the payment-scheduled notices of the
 * payments that ask for one.
 */
export async function createGroup(
  input: CreateGroupInput,
  merchant: Merchant,
  now: Date,
): Promise<{ group: Group; payments: Payment[] }> {
  const { group, payments } = newGroupWithPayments(input, merchant.merchantId, newId, now);
  const profiles = await resolveProfiles(
    merchant.merchantId,
    payments.map((p) => p.profileId),
    (i) => `payments[${i}].profileId`,
  );
  const notices = await scheduledNotices(payments, group, merchant.name, profiles, now);
  await groupStore().createGroup(group, payments, notices);
  return { group, payments };
}

/**
 * Removes group creates abandoned half-way (a crash or timeout between the group's write-ahead and
 * its commit) with their payments and notices; the groups removed. For the hourly tick.
 */
export function sweepAbandonedCreates(now: Date): Promise<string[]> {
  return groupStore().sweepAbandonedCreates(now);
}

/**
 * Changes the fields present. A processing or processed group is returned unchanged (the update
 * is ignored); a claim between read and write turns the update into that case.
 */
export function updateGroup(
  groupId: string,
  merchantId: string,
  input: UpdateGroupInput,
  now: Date,
): Promise<Group> {
  return withOptimisticRetry(async () => {
    const group = await requireGroup(groupId, merchantId);
    const next = updatedGroup(group, input, now);
    if (!next) return group;
    return groupStore().updateSettings(next);
  });
}

/** Cancels a pending group (soft delete); a deleted group stays deleted (no-op). */
export async function deleteGroup(groupId: string, merchantId: string, now: Date): Promise<void> {
  await withOptimisticRetry(async () => {
    const group = await requireGroup(groupId, merchantId);
    if (group.status === 'deleted') return true;
    if (group.status === 'processing') {
      throw new BadRequestError(`payment group ${groupId} is being processed`);
    }
    if (group.status === 'processed') {
      throw new BadRequestError(
        `payment group ${groupId} has already been processed; use void-or-refund instead`,
      );
    }
    return (await groupStore().markDeleted(groupId, now)) || undefined;
  });
}
