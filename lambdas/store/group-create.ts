/**
 * Creating a group too large for one transaction, all or nothing even across a crash
 * (docs/decisions.md "Large creates are written ahead"):
 *
 * 1. the group item is written first, in the invisible state `creating`: no read path returns it,
 *    no list or due index holds it, and the notifier holds its notices back (its group is "not
 *    committed yet");
 * 2. the payments, their method uses and their outbox items are batch-written, stopping at the
 *    first failure; then every method they name is read again (strongly consistent): one that is
 *    gone or being deleted fails the create (store/method-uses.ts, the fence);
 * 3. one conditional write flips the group to `pending` and gives it its index keys: the commit.
 *
 * A create that fails deletes what it wrote (the group item last); one that dies on the way
 * (crash, timeout) leaves a `creating` group, which sweepAbandonedCreates removes with its items.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { Group, Payment } from '#domain/groups';
import { noticeOutboxId, type OutboxItem } from '#domain/notifications';
import { keys } from '#shared/keys';
import { logger } from '#shared/logger';
import { eventPut } from './events';
import { batchWriteAll, conditionOutcome, isConditionFailure, type Item, queryAll } from './items';
import { distinctProfiles, MethodUnavailableError, unavailableMethods, useItem, useKey } from './method-uses';
import { outboxRecord } from './outbox';
import { paymentItem } from './payments';

/** The status a group item holds while its create is under way; never shown outside the store. */
export const CREATING = 'creating';

/** A create still `creating` after this long is abandoned (the create function's timeout is far less). */
export const ABANDONED_CREATE_MS = 5 * 60 * 1000;

/**
 * The group item as written ahead: status `creating`, only the sweep's index key, and the token of
 * this attempt (`createAttempt`): only the attempt that wrote it commits it or removes it.
 */
function creatingItem(committed: Item, group: Group, attempt: string): Item {
  const item: Item = { ...committed };
  for (const key of ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']) delete item[key];
  return {
    ...item,
    status: CREATING,
    createAttempt: attempt,
    gsi2pk: keys.creatingPartition,
    gsi2sk: keys.creatingSort(group.dateCreated, group.paymentGroupId),
  };
}

/** Every item a create of these payments and notices may have written, group item excluded. */
const childKeys = (
  groupId: string,
  payments: readonly Pick<Payment, 'paymentId' | 'profileId'>[],
  outboxIds: readonly string[],
) => [
  ...payments.flatMap((p) => [
    keys.payment(groupId, p.paymentId),
    useKey({ paymentGroupId: groupId, paymentId: p.paymentId, profileId: p.profileId }),
  ]),
  ...outboxIds.map((id) => keys.outbox(id)),
];

/**
 * Deletes a create's payments and outbox items, then its group item if still `creating` (last, so
 * that a removal that dies half-way is found again by the sweep).
 */
async function removeCreate(
  db: DynamoDBDocumentClient,
  tableName: string,
  groupId: string,
  children: { pk: string; sk: string }[],
  /** The write-ahead's token (none on one written before tokens existed). */
  attempt: string | undefined,
): Promise<void> {
  await batchWriteAll(
    db,
    tableName,
    children.map((Key) => ({ DeleteRequest: { Key } })),
  );
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.group(groupId),
        ConditionExpression:
          attempt === undefined
            ? '#status = :creating AND attribute_not_exists(createAttempt)'
            : '#status = :creating AND createAttempt = :attempt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':creating': CREATING,
          ...(attempt !== undefined && { ':attempt': attempt }),
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error; // gone already, (never) committed, or another attempt's
  }
}

/** Writes the group ahead, then its payments and outbox items, then commits (see the module comment). */
export async function createWrittenAhead(
  db: DynamoDBDocumentClient,
  tableName: string,
  committed: Item,
  group: Group,
  payments: readonly Payment[],
  outbox: readonly OutboxItem[],
  event?: ServiceEvent,
): Promise<void> {
  const attempt = randomUUID();
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: creatingItem(committed, group, attempt),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  try {
    await batchWriteAll(db, tableName, [
      ...payments.flatMap((p) => [
        { PutRequest: { Item: paymentItem(p) } },
        { PutRequest: { Item: useItem(p) } },
      ]),
      ...outbox.map((o) => ({ PutRequest: { Item: outboxRecord(o) } })),
    ]);
    // The fence, after the uses are written: a deletion that marked a method before this read is
    // refused here; one that marks it after finds these uses (store/method-uses.ts).
    const unavailable = await unavailableMethods(db, tableName, distinctProfiles(payments));
    if (unavailable.length > 0) throw new MethodUnavailableError(unavailable);
    await commit(db, tableName, committed, group, attempt, event);
  } catch (error) {
    // Only this attempt's own items go: its payments and notices (ids no other attempt uses), and
    // the group item only while it is still this attempt's write-ahead. An attempt that outlived
    // its idempotency lease may find its group discarded and created again by a resumed retry:
    // that group, and the retry's payments, are not touched (issue 25: a superseded create
    // committed the retry's group, then removed the retry's payments, leaving a group of 10,000
    // with 3,360 payment items).
    const children = childKeys(
      group.paymentGroupId,
      payments,
      outbox.map((o) => o.outboxId),
    );
    await removeCreate(db, tableName, group.paymentGroupId, children, attempt).catch((cleanup: unknown) =>
      // The group stays `creating`: the sweep removes it and whatever is left.
      logger.warn('failed create not removed; left to the sweep', { cleanup }),
    );
    throw error;
  }
}

/** creating → pending with the index keys, and the event announcing the group, in one transaction. */
async function commit(
  db: DynamoDBDocumentClient,
  tableName: string,
  committed: Item,
  group: Group,
  attempt: string,
  event: ServiceEvent | undefined,
) {
  const update = {
    Update: {
      TableName: tableName,
      Key: keys.group(group.paymentGroupId),
      UpdateExpression:
        'SET #status = :status, gsi1pk = :g1pk, gsi1sk = :g1sk, gsi2pk = :g2pk, gsi2sk = :g2sk' +
        (event ? ', eventSeq = :seq' : '') +
        ' REMOVE createAttempt',
      ConditionExpression: '#status = :creating AND createAttempt = :attempt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': committed.status,
        ':g1pk': committed.gsi1pk,
        ':g1sk': committed.gsi1sk,
        ':g2pk': committed.gsi2pk,
        ':g2sk': committed.gsi2sk,
        ':creating': CREATING,
        ':attempt': attempt,
        ...(event && { ':seq': event.sequence }),
      },
    },
  };
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [update, ...(event ? [eventPut(tableName, event)] : [])] as never,
      }),
    );
  } catch (error) {
    // A retried commit whose first attempt was applied fails its condition: committed already.
    conditionOutcome(error, [[0, true]]);
    const { Item: stored } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.group(group.paymentGroupId), ConsistentRead: true }),
    );
    if (stored?.status !== committed.status || stored?.dateCreated !== group.dateCreated) throw error;
  }
}

/**
 * Removes every create abandoned in `creating` for longer than ABANDONED_CREATE_MS (a crash or a
 * timeout between the group's write-ahead and its commit) with its payments and outbox items.
 * Safe to run at any time and concurrently: it never touches a committed group. Returns the
 * groups removed. Run from the hourly tick (or any schedule).
 */
export async function sweepAbandonedCreates(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: Date,
  deadline = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const before = new Date(now.getTime() - ABANDONED_CREATE_MS).toISOString();
  const stuck = await queryAll(db, {
    TableName: tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :creating AND gsi2sk < :before',
    ExpressionAttributeValues: { ':creating': keys.creatingPartition, ':before': before },
  });
  const removed: string[] = [];
  for (const item of stuck) {
    // One removal deletes up to 10,000 items (about 10 s); the rest waits for the next sweep.
    if (Date.now() > deadline) break;
    const groupId = String(item.paymentGroupId);
    await discardCreate(db, tableName, groupId);
    logger.warn('abandoned group create removed', { paymentGroupId: groupId });
    removed.push(groupId);
  }
  return removed;
}

/**
 * Removes one group left `creating` with the payments and notices it wrote (a committed group is
 * never touched). The sweep's step, and an idempotent retry's before it creates again.
 */
export async function discardCreate(
  db: DynamoDBDocumentClient,
  tableName: string,
  groupId: string,
): Promise<void> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: keys.group(groupId), ConsistentRead: true }),
  );
  if (Item?.status !== CREATING) return;
  const attempt = Item.createAttempt as string | undefined;
  const payments = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
    ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':payment': keys.paymentPrefix },
    ProjectionExpression: 'paymentId, profileId',
  });
  const written = payments.map((p) => ({ paymentId: String(p.paymentId), profileId: String(p.profileId) }));
  const paymentIds = written.map((p) => p.paymentId);
  // A payment's notice is the only outbox item a create writes (noticeOutboxId). A use whose
  // payment was never written stays behind: pendingUses prunes it once this group is gone.
  await removeCreate(
    db,
    tableName,
    groupId,
    childKeys(groupId, written, paymentIds.map(noticeOutboxId)),
    attempt,
  );
}
