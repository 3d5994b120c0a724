/**
 * Creating an item with more children than one transaction holds (a group with its payments,
 * their method uses and notices, a series with its payments), all or nothing even across a crash
 * (docs/decisions.md "Large creates are written ahead"):
 *
 * 1. the container item is written first, in the invisible state `creating`, with the token of
 *    this attempt (`createAttempt`): no read path returns it, no list or due index holds it, and
 *    the notifier holds a group's notices back (its group is "not committed yet");
 * 2. the children are batch-written, stopping at the first failure; then the create's fence runs
 *    (a group's: every method its payments name is read again, store/method-uses.ts);
 * 3. one transaction flips the container to its status and gives it its index keys (the commit),
 *    with the event announcing it and whatever else must hold at the same moment; it holds only
 *    while the container is still this attempt's write-ahead.
 *
 * A create that fails deletes what it wrote (the container last, and only if it is still this
 * attempt's); one that dies on the way (crash, timeout) leaves a `creating` container, which
 * sweepAbandonedCreates removes with its children.
 *
 * The write-ahead holds a lease (`createLeaseUntil`, CREATE_LEASE_MS after it was written): its
 * writer sends no child batch and no commit once WRITER_BUDGET_MS have passed, and nobody else
 * removes the create before the lease ends (a resumed retry is answered CreateInProgressError, the
 * sweep leaves it): a create whose writer may still be writing is never taken for abandoned
 * (docs/decisions.md "A create in progress is never abandoned").
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { noticeOutboxId } from '#domain/notifications';
import { keys } from './keys';
import { logger } from '#shared/logger';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { batchWriteAll, type Item } from './items';
import { readAll } from './paging';
import { seriesUseKey } from './method-series-uses';
import { useKey } from './method-uses';
import { clock } from '#shared/clock';

/** The status a container item holds while its create is under way; never shown outside the store. */
export const CREATING = 'creating';

/** A create still `creating` after this long is abandoned (the create functions' timeouts are far less). */
export const ABANDONED_CREATE_MS = 5 * 60 * 1000;

/**
 * How long after its write-ahead a writer may still send a child batch or its commit: far above
 * the create functions' timeout (CREATE_GROUP_TIMEOUT_SECONDS, 27 s), which ends a writer in the
 * cloud, and a bound for one that runs on after it (the local gateway's answer at the timeout, a
 * frozen container thawed later): past it, the writer gives up and removes its own items.
 */
const WRITER_BUDGET_MS = 60_000;

/**
 * The write-ahead's lease: nobody but its writer removes a create before it ends. A minute past
 * WRITER_BUDGET_MS, so that a batch sent at the budget's last moment has landed.
 */
export const CREATE_LEASE_MS = WRITER_BUDGET_MS + 60_000;

/** A create whose write-ahead lease has not ended: its writer may still be writing. */
export class CreateInProgressError extends Error {
  constructor(
    readonly id: string,
    /** When the lease ends (ms since the epoch): a retry after it finds the create committed or abandoned. */
    readonly leaseUntil: number,
  ) {
    super(`create ${id} is still in progress`);
    this.name = 'CreateInProgressError';
  }
}

/** The writer ran past WRITER_BUDGET_MS: it stops, and its create fails. */
class WriterOutOfTimeError extends Error {
  constructor(id: string) {
    super(`create ${id} ran past its writer budget`);
    this.name = 'WriterOutOfTimeError';
  }
}

const INDEX_KEYS = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'] as const;

type Key = { pk: string; sk: string };

/** What a written-ahead create writes. */
interface WrittenAhead {
  /** The container item as committed: its key, `status`, `dateCreated` and index keys included. */
  committed: Item;
  /** The container's id, for the sweep's index and its log. */
  id: string;
  /** Its children (puts), written between the write-ahead and the commit. */
  children: Item[];
  /**
   * Runs after the children are written and before the commit; a throw fails the create (a
   * group's fence: its payments' methods still usable).
   */
  fence?: () => Promise<void>;
  /** Further items of the commit's transaction: the event, a condition on another item. */
  commitItems?: object[];
  /** The container's `eventSeq` once committed (when the commit announces it). */
  eventSeq?: number;
}

const keyOf = (item: Item): Key => ({ pk: String(item.pk), sk: String(item.sk) });

/**
 * The container as written ahead: status `creating`, only the sweep's index key, and the token of
 * this attempt (`createAttempt`): only the attempt that wrote it commits it or removes it.
 */
function creatingItem(w: WrittenAhead, attempt: string, writtenAt: number): Item {
  const item: Item = { ...w.committed };
  for (const key of INDEX_KEYS) delete item[key];
  return {
    ...item,
    status: CREATING,
    createAttempt: attempt,
    createLeaseUntil: writtenAt + CREATE_LEASE_MS,
    gsi2pk: keys.creatingPartition,
    gsi2sk: keys.creatingSort(String(w.committed.dateCreated), w.id),
  };
}

/**
 * Deletes a create's children, then its container if still `creating` by this attempt (last, so
 * that a removal that dies half-way is found again by the sweep).
 */
async function removeCreate(
  db: DynamoDBDocumentClient,
  tableName: string,
  container: Key,
  children: Key[],
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
        Key: container,
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

/**
 * Writes the container ahead, then its children, then commits (see the module comment). The
 * write-ahead fails its condition when the container exists already (created, or being created):
 * nothing is written then, and the error is thrown as it came.
 */
export async function createWrittenAhead(
  db: DynamoDBDocumentClient,
  tableName: string,
  w: WrittenAhead,
): Promise<void> {
  const attempt = randomUUID();
  const writtenAt = clock.nowMs();
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: creatingItem(w, attempt, writtenAt),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const stopAt = writtenAt + WRITER_BUDGET_MS;
  const inBudget = () => {
    if (clock.nowMs() > stopAt) throw new WriterOutOfTimeError(w.id);
  };
  try {
    await batchWriteAll(
      db,
      tableName,
      w.children.map((Item) => ({ PutRequest: { Item } })),
      undefined,
      inBudget,
    );
    await w.fence?.();
    inBudget();
    await commit(db, tableName, w, attempt);
  } catch (error) {
    // Only this attempt's own items go: its children (ids no other attempt uses), and the
    // container only while it is still this attempt's write-ahead. An attempt that outlived its
    // idempotency lease may find its group discarded and created again by a resumed retry: that
    // group, and the retry's payments, are not touched (a superseded create that did would commit
    // the retry's group, then remove the retry's payments: a group of 10,000 with a third of its
    // payment items).
    await removeCreate(db, tableName, keyOf(w.committed), w.children.map(keyOf), attempt).catch(
      (cleanup: unknown) =>
        // The container stays `creating`: the sweep removes it and whatever is left.
        logger.warn('failed create not removed; left to the sweep', { cleanup, id: w.id }),
    );
    throw error;
  }
}

/**
 * creating → the committed status with the index keys, and the commit's other items, in one
 * transaction; only while the container is this attempt's write-ahead (its token is removed).
 */
async function commit(
  db: DynamoDBDocumentClient,
  tableName: string,
  w: WrittenAhead,
  attempt: string,
): Promise<void> {
  const indexKeys = INDEX_KEYS.filter((k) => w.committed[k] !== undefined);
  const values: Item = { ':status': w.committed.status, ':creating': CREATING, ':attempt': attempt };
  for (const k of indexKeys) values[`:${k}`] = w.committed[k];
  if (w.eventSeq !== undefined) values[':seq'] = w.eventSeq;
  const set = [
    '#status = :status',
    ...indexKeys.map((k) => `${k} = :${k}`),
    ...(w.eventSeq !== undefined ? ['eventSeq = :seq'] : []),
  ];
  const update = {
    Update: {
      TableName: tableName,
      Key: keyOf(w.committed),
      UpdateExpression: `SET ${set.join(', ')} REMOVE createAttempt`,
      ConditionExpression: '#status = :creating AND createAttempt = :attempt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  };
  try {
    await db.send(new TransactWriteCommand({ TransactItems: [update, ...(w.commitItems ?? [])] as never }));
  } catch (error) {
    // A retried commit whose first attempt was applied fails its condition: committed already. A
    // refusal of another item (the commit's other conditions) is thrown as it came.
    conditionOutcome(error, [[0, true]]);
    const { Item: stored } = await db.send(
      new GetCommand({ TableName: tableName, Key: keyOf(w.committed), ConsistentRead: true }),
    );
    if (stored?.status !== w.committed.status || stored?.dateCreated !== w.committed.dateCreated) throw error;
  }
}

/**
 * Removes every create abandoned in `creating` for longer than ABANDONED_CREATE_MS (a crash or a
 * timeout between the write-ahead and the commit) with its children. Safe to run at any time and
 * concurrently: it never touches a committed item. Returns the ids of the containers removed (groups
 * and series). Run from the scheduled sweeper.
 */
export async function sweepAbandonedCreates(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: Date,
  deadline = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  const before = new Date(now.getTime() - ABANDONED_CREATE_MS).toISOString();
  const stuck = await readAll(db, {
    TableName: tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :creating AND gsi2sk < :before',
    ExpressionAttributeValues: { ':creating': keys.creatingPartition, ':before': before },
  });
  const removed: string[] = [];
  for (const item of stuck) {
    // One removal deletes up to 10,000 items (about 10 s); the rest waits for the next sweep.
    if (clock.nowMs() > deadline) break;
    const id = String(item.paymentGroupId ?? item.seriesId);
    try {
      await discardCreate(db, tableName, keyOf(item), id, now);
    } catch (error) {
      if (error instanceof CreateInProgressError) continue; // its writer may still be writing
      // One removal's failure stops neither the others nor the sweep's next job: it is tried
      // again by the next sweep.
      logger.error('abandoned create not removed', { entity: item.entity, id, error });
      continue;
    }
    logger.warn('abandoned create removed', { entity: item.entity, id });
    removed.push(id);
  }
  return removed;
}

/**
 * Removes one container left `creating` with the children it wrote (a committed item is never
 * touched; the container itself only on the token it was read with): its payments (the items of
 * its partition under `PAYMENT#`), their method uses and, for a group, their notices (the only
 * outbox items a group create writes: noticeOutboxId). The sweep's step, and an idempotent
 * retry's before it creates again. A create whose lease has not ended at `now` is left alone:
 * CreateInProgressError (its writer may still be writing; removing its items under it would
 * let it commit a group without them).
 */
export async function discardCreate(
  db: DynamoDBDocumentClient,
  tableName: string,
  container: Key,
  id: string,
  now: Date,
): Promise<void> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: container, ConsistentRead: true }),
  );
  if (Item?.status !== CREATING) return;
  const leaseUntil = Item.createLeaseUntil as number | undefined; // none before leases existed
  if (leaseUntil !== undefined && leaseUntil > now.getTime()) throw new CreateInProgressError(id, leaseUntil);
  const attempt = Item.createAttempt as string | undefined;
  const payments = await readAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
    ExpressionAttributeValues: { ':pk': container.pk, ':payment': keys.paymentPrefix },
    ProjectionExpression: 'pk, sk, paymentId, profileId, #index',
    ExpressionAttributeNames: { '#index': 'index' },
  });
  // A use whose payment was never written stays behind: pendingUses prunes it once its group (or
  // series) is gone.
  const uses =
    Item.entity === 'group'
      ? payments.flatMap((p) => [
          useKey({
            paymentGroupId: String(Item.paymentGroupId),
            paymentId: String(p.paymentId),
            profileId: String(p.profileId),
          }),
          keys.outbox(noticeOutboxId(String(p.paymentId))),
        ])
      : payments.map((p) =>
          seriesUseKey(String(Item.seriesId), { index: Number(p.index), profileId: String(p.profileId) }),
        );
  await removeCreate(db, tableName, container, [...payments.map(keyOf), ...uses], attempt);
}
