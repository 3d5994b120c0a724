/**
 * Creating a group too large for one transaction, all or nothing even across a crash
 * (docs/decisions.md "Large creates are written ahead"), on the one write-ahead mechanism of
 * write-ahead.ts:
 *
 * 1. the group item is written first, in the invisible state `creating`: no read path returns it,
 *    no list or due index holds it, and the notifier holds its notices back (its group is "not
 *    committed yet");
 * 2. the payments and their outbox items are batch-written, stopping at the first failure;
 * 3. one conditional write flips the group to `pending` and gives it its index keys: the commit.
 *
 * A create that fails deletes what it wrote (the group item last); one that dies on the way
 * (crash, timeout) leaves a `creating` group, which sweepAbandonedCreates removes with its items.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { Group, Payment } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { keys } from '#shared/keys';
import { eventPut } from './events';
import type { Item } from './items';
import { outboxRecord } from './outbox';
import { paymentItem } from './payments';
import * as writeAhead from './write-ahead';

export { ABANDONED_CREATE_MS, CREATING, sweepAbandonedCreates } from './write-ahead';

/**
 * Writes the group ahead, then its payments and outbox items, then commits with its event and
 * `commitItems` (a condition the group's existence depends on: the series' advance).
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
    children: [...payments.map(paymentItem), ...outbox.map(outboxRecord)],
    commitItems: [...(event ? [eventPut(tableName, event)] : []), ...commitItems],
    ...(event && { eventSeq: event.sequence }),
  });
}

/**
 * Removes one group left `creating` with the payments and notices it wrote (a committed group is
 * never touched). The sweep's step, and an idempotent retry's before it creates again.
 */
export function discardCreate(db: DynamoDBDocumentClient, tableName: string, groupId: string): Promise<void> {
  return writeAhead.discardCreate(db, tableName, keys.group(groupId));
}
