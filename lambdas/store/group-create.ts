/**
 * Creating a group too large for one transaction, all or nothing even across a crash
 * (docs/decisions.md "Large creates are written ahead"), on the one write-ahead mechanism of
 * write-ahead.ts:
 *
 * 1. the group item is written first, in the invisible state `creating`, with this attempt's
 *    token (`createAttempt`): no read path returns it, no list or due index holds it, and the
 *    notifier holds its notices back (its group is "not committed yet");
 * 2. the payments, their method uses and their outbox items are batch-written, stopping at the
 *    first failure; then every method they name is read again (strongly consistent): one that is
 *    gone or being deleted fails the create (store/method-uses.ts, the fence);
 * 3. one conditional write flips the group to `pending` and gives it its index keys: the commit,
 *    which holds only while the group item is still this attempt's write-ahead.
 *
 * A create that fails deletes what it wrote (the group item last, and only if still this
 * attempt's); one that dies on the way (crash, timeout) leaves a `creating` group, which
 * sweepAbandonedCreates removes with its items.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { Group, Payment } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { keys } from './keys';
import { eventPut } from './events';
import type { Item } from './items';
import { distinctProfiles, MethodUnavailableError, unavailableMethods, useItem } from './method-uses';
import { outboxRecord } from './outbox';
import { paymentItem } from './payments';
import * as writeAhead from './write-ahead';

export { ABANDONED_CREATE_MS, CREATING, sweepAbandonedCreates } from './write-ahead';

/**
 * Writes the group ahead, then its payments, their method uses and their outbox items, checks
 * the methods (the fence), then commits with its event and `commitItems` (a condition the
 * group's existence depends on: the series' advance).
 */
export async function createWrittenAhead(
  db: DynamoDBDocumentClient,
  tableName: string,
  committed: Item,
  group: Group,
  payments: readonly Payment[],
  outbox: readonly OutboxItem[],
  event?: ServiceEvent,
  commitItems: readonly object[] = [],
): Promise<void> {
  await writeAhead.createWrittenAhead(db, tableName, {
    committed,
    id: group.paymentGroupId,
    children: [...payments.flatMap((p) => [paymentItem(p), useItem(p)]), ...outbox.map(outboxRecord)],
    // After the uses are written: a deletion that marked a method before this read is refused
    // here; one that marks it after finds these uses (store/method-uses.ts).
    fence: async () => {
      const unavailable = await unavailableMethods(db, tableName, distinctProfiles(payments));
      if (unavailable.length > 0) throw new MethodUnavailableError(unavailable);
    },
    commitItems: [...(event ? [eventPut(tableName, event)] : []), ...commitItems],
    ...(event && { eventSeq: event.sequence }),
  });
}

/**
 * Removes one group left `creating` with the payments, method uses and notices it wrote (a
 * committed group is never touched; the group item only on the attempt token read with it). The
 * sweep's step, and an idempotent retry's before it creates again. A create whose write-ahead
 * lease has not ended at `now` is left alone: CreateInProgressError.
 */
export function discardCreate(
  db: DynamoDBDocumentClient,
  tableName: string,
  groupId: string,
  now: Date,
): Promise<void> {
  return writeAhead.discardCreate(db, tableName, keys.group(groupId), groupId, now);
}
