/**
 * Group and payment lookups and changes as the API sees them: a group or payment of another
 * merchant is not found (no existence leak), a refused conditional write is explained with the
 * error the client can act on, and optimistic races are retried.
 */
import { fitting } from './answer-size';
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import type { CreateGroupInput, UpdateGroupInput } from '#contract/schemas/groups';
import { nextSequence } from '#domain/events';
import {
  assertPaymentsEditable,
  groupEvent,
  groupWithPaymentsView,
  newGroupWithPayments,
  updatedGroup,
  type Group,
  type Payment,
} from '#domain/groups';
import { BadRequestError, GroupNotFoundError, PaymentNotFoundError } from '#shared/errors';
import { newId } from '#shared/ids';
import type { Merchant } from '#store/merchants';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { groupStore, type AlsoWritten } from '#store/groups';
import { retryRoundStore } from '#store/retry-rounds';
import { paymentStore } from '#store/payments';
import { payorsOf, resolveProfiles, scheduledNotices, withSponsorKey, writingPayments } from './profiles';

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
 * merchant's, 400 when it is not pending or full. Returns when none of these holds: the group
 * changed between the caller's read and write (a reschedule under a notice), and the caller
 * retries with the group as it is now.
 */
export async function explainGroupRejection(groupId: string, merchantId: string): Promise<void> {
  const group = await requireGroup(groupId, merchantId);
  assertPaymentsEditable(group);
  if (group.paymentCount >= MAX_PAYMENTS_PER_GROUP) {
    throw new BadRequestError(`a group holds at most ${MAX_PAYMENTS_PER_GROUP} payments`);
  }
}

/** How a group is created besides its request. */
interface GroupCreateOptions {
  /** The group's id when it is derived (a series' occurrence: ids.ts occurrenceGroupId); a new one otherwise. */
  groupId?: string;
  /**
   * The series occurrence the group is: the group carries `seriesId` and `occurrence`, and is
   * written only together with the series' `advance` (its cursor moved past the occurrence), so
   * that a group of a series exists exactly when its series says so. A group with this id that
   * exists (or is being created) already, or a series changed since it was read, refuses the
   * create: the error of the refused write is thrown as it came (core/series.ts reads again).
   */
  occurrenceOf?: { seriesId: string; occurrence: number; advance: AlsoWritten };
}

/**
 * Why a processed group refused the deletion of a payment whose retry is scheduled: a retry round
 * of the group is charging (400: delete it again once the round is done). Returns otherwise (the
 * caller reads again).
 */
export async function explainRetryRejection(groupId: string, merchantId: string): Promise<void> {
  const group = await requireGroup(groupId, merchantId);
  if (group.retryBound !== undefined)
    throw new BadRequestError(
      `a retry round of payment group ${groupId} is running; delete the payment again once it is done (within minutes)`,
    );
  if (group.status !== 'processed') assertPaymentsEditable(group);
}

/**
 * A new group with its payments, all or nothing, with the payment-scheduled notices of the
 * payments that ask for one. Keyed (docs/decisions.md "Idempotent group create"; the route
 * builder runs the key), the group's id is the key's: a retry that resumes a create which died
 * half-way answers the group if it was committed, else removes what was written ahead and
 * creates it again.
 */
export function createGroup(
  input: CreateGroupInput,
  merchant: Merchant,
  now: Date,
  keyed?: { resourceId: string; resumed: boolean },
  options: GroupCreateOptions = {},
): Promise<{ group: Group; payments: Payment[] }> {
  return createOnce(
    keyed?.resourceId ?? options.groupId ?? newId(),
    keyed?.resumed ?? false,
    input,
    merchant,
    now,
    options.occurrenceOf,
  );
}

/** The group as stored now, with its payments: what a replay of its create answers. */
export async function storedGroup(
  groupId: string,
  merchantId: string,
): Promise<{ group: Group; payments: Payment[] }> {
  const group = await requireGroup(groupId, merchantId);
  return { group, payments: await paymentStore().listPayments(groupId) };
}

async function createOnce(
  groupId: string,
  resumed: boolean,
  input: CreateGroupInput,
  merchant: Merchant,
  now: Date,
  occurrenceOf?: GroupCreateOptions['occurrenceOf'],
): Promise<{ group: Group; payments: Payment[] }> {
  if (resumed) {
    // The first attempt died: after its commit (answer that group), or before (start over).
    if (await groupStore().getGroup(groupId)) return storedGroup(groupId, merchant.merchantId);
    // Not while the first attempt may still be writing (its lease runs): CreateInProgressError,
    // answered 409 with Retry-After (core/idempotency.ts), never a group without some payments.
    await groupStore().discardCreate(groupId, now);
  }
  let groupIdGiven = false;
  const ids = () => (groupIdGiven ? newId() : ((groupIdGiven = true), groupId));
  const created = newGroupWithPayments(input, merchant.merchantId, ids, now);
  const group = created.group;
  if (occurrenceOf)
    Object.assign(group, { seriesId: occurrenceOf.seriesId, occurrence: occurrenceOf.occurrence });
  // A series' payment whose method the account updater closed (or a return revoked, before the
  // series suspends it) stays in its occurrence, to be declined at the slot: refused, it would
  // hold back the occurrence of every other payor until its slot passed.
  const profiles = await resolveProfiles(
    merchant.merchantId,
    created.payments.map((p) => p.profileId),
    (i) => `payments[${i}].profileId`,
    occurrenceOf !== undefined,
  );
  const payors = await payorsOf(merchant.merchantId, created.payments);
  const payments = created.payments.map((p) => withSponsorKey(p, payors));
  // The create answers the group with every payment: one Lambda could not return (large custom
  // attributes on many payments) is refused now, with nothing written, rather than created and
  // never answered (its replays would be as large). A series' occurrence is not answered so.
  if (!occurrenceOf)
    fitting(
      groupWithPaymentsView({ group, payments }),
      'create the group with fewer payments and add the rest with POST .../payments',
    );
  const notices = scheduledNotices(payments, group, merchant.name, profiles, payors, now);
  // The group is announced with the payments inside it (no payment.created each).
  const announced: Group = { ...group, eventSeq: 1 };
  await writingPayments(payments, () =>
    groupStore().createGroup(
      announced,
      payments,
      notices,
      groupEvent('group.created', announced, now),
      occurrenceOf?.advance,
    ),
  );
  return { group: announced, payments };
}

/**
 * Removes group creates abandoned half-way (a crash or timeout between the group's write-ahead and
 * its commit) with their payments and notices; the groups removed. For the hourly tick.
 */
export function sweepAbandonedCreates(now: Date, deadline?: number): Promise<string[]> {
  return groupStore().sweepAbandonedCreates(now, deadline);
}

/**
 * Changes the fields present, announced by `group.updated`. A processing or processed group is
 * returned unchanged (the update is ignored); a claim between read and write turns the update
 * into that case. The write holds only if the group is as read (no change announced since, the
 * same totals), so concurrent updates of different fields all take effect: the loser reads again
 * and applies its fields to the winner's group.
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
    const written = await groupStore().updateSettings(group, next, groupEvent('group.updated', next, now));
    return written ? next : undefined;
  });
}

/**
 * Cancels a pending group (soft delete), announced by `group.deleted`; a deleted group stays
 * deleted (no-op, no event). A processed group whose payments have retries scheduled, between its
 * runs, can be deleted too: its retries are cancelled (`not_retried`, group_deleted; within a
 * minute, by a round that charges nothing) and what it charged stays as it is (void-or-refund
 * reverses it).
 */
export async function deleteGroup(groupId: string, merchantId: string, now: Date): Promise<void> {
  await withOptimisticRetry(async () => {
    const group = await requireGroup(groupId, merchantId);
    if (group.status === 'deleted') return true;
    if (group.status === 'processing') {
      throw new BadRequestError(`payment group ${groupId} is being processed`);
    }
    if (group.status === 'processed' && group.retrySlot !== undefined && !group.awaitingRetry) {
      throw new BadRequestError(
        `payment group ${groupId} is finishing a run (a retry round, or its receipts); delete it again in a few minutes to cancel its retries`,
      );
    }
    if (group.status === 'processed' && !group.awaitingRetry) {
      throw new BadRequestError(
        `payment group ${groupId} has already been processed; use void-or-refund instead`,
      );
    }
    const deleted: Group = {
      ...group,
      status: 'deleted',
      lastUpdated: now.toISOString(),
      eventSeq: nextSequence(group.eventSeq),
    };
    const event = groupEvent('group.deleted', deleted, now);
    if (group.status === 'processed')
      return (await retryRoundStore().deleteWaiting(group, now, event)) || undefined;
    return (await groupStore().markDeleted(group, now, event)) || undefined;
  });
}
