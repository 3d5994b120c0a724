/**
 * The e-mail outbox. An outbox item is written in the same transaction as the change that causes
 * the e-mail (a payment with the notice flag), so the intent to send is never lost; the table's
 * stream hands new items to the notifier. Delivery is at least once per item, with the item's id
 * as the e-mail's stable message id: the notifier claims an item (pending → sending) with a
 * conditional write before sending, so a stream record delivered twice sends one e-mail; a claim
 * left unfinished (the notifier died, perhaps after SES accepted the message) expires after
 * CLAIM_LEASE_MS and the item is sent again, with the same id. An item SES keeps refusing ends
 * `failed`, one it keeps throttling ends `stuck`: visible, never dropped. `attempts` counts the
 * sends SES answered; `throttles` the sends it asked to slow down (docs/decisions.md).
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import type { OutboxItem, OutboxStatus } from '#domain/notifications';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, strip } from './items';
import { scanPages } from './paging';
import { clock } from '#shared/clock';

/** A claim not finished within this time (the notifier crashed mid-send) may be taken again. */
const CLAIM_LEASE_MS = 30_000;

type ReleaseOutcome = 'attempt' | 'throttled' | 'not-ready';
const COUNTER: Record<ReleaseOutcome, string> = {
  attempt: 'attempts',
  throttled: 'throttles',
  'not-ready': 'attempts',
};

export const outboxRecord = (item: OutboxItem) => ({
  ...keys.outbox(item.outboxId),
  entity: 'outbox',
  ...item,
});

/** The transaction item that writes an outbox entry once. */
export const outboxPut = (tableName: string, item: OutboxItem) => ({
  Put: { TableName: tableName, Item: outboxRecord(item), ConditionExpression: 'attribute_not_exists(pk)' },
});

export class OutboxStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(outboxId: string): Promise<OutboxItem | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.outbox(outboxId), ConsistentRead: true }),
    );
    return Item ? strip<OutboxItem>(Item) : undefined;
  }

  /** Writes an item unless one with its id exists (receipts: one per payment). */
  async putOnce(item: OutboxItem): Promise<boolean> {
    try {
      await this.db.send(new PutCommand(outboxPut(this.tableName, item).Put));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * pending (or a stale sending) → sending. The item as claimed; or, when it is not ours to send,
   * its status (`sending`: another delivery holds a live claim, which may yet fail).
   */
  async claim(
    outboxId: string,
    now: Date,
  ): Promise<{ item: OutboxItem } | { status: OutboxItem['status'] | 'missing' }> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.outbox(outboxId),
          UpdateExpression: 'SET #status = :sending, leaseUntil = :lease',
          ConditionExpression: '#status = :pending OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':pending': 'pending',
            ':lease': now.getTime() + CLAIM_LEASE_MS,
            ':now': now.getTime(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { item: strip<OutboxItem>(Attributes!) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { status: (await this.get(outboxId))?.status ?? 'missing' };
    }
  }

  private async finish(outboxId: string, update: string, values: Record<string, unknown>): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.outbox(outboxId),
        UpdateExpression: `${update} REMOVE leaseUntil`,
        ConditionExpression: '#status = :sending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':sending': 'sending', ...values },
      }),
    );
  }

  markSent(outboxId: string, messageId: string, now: Date): Promise<void> {
    return this.finish(outboxId, 'SET #status = :sent, messageId = :m, sentAt = :now ADD attempts :one', {
      ':sent': 'sent',
      ':m': messageId,
      ':now': now.toISOString(),
      ':one': 1,
    });
  }

  /**
   * Back to pending for the next delivery, counting what happened: `attempt` when SES answered
   * (refused), `throttled` when SES asked to slow down (no attempt), `not-ready` when nothing was
   * tried (the group is not committed yet).
   */
  release(outboxId: string, error: string, outcome: ReleaseOutcome): Promise<void> {
    return this.finish(outboxId, `SET #status = :pending, lastError = :e ADD ${COUNTER[outcome]} :n`, {
      ':pending': 'pending',
      ':e': error,
      ':n': outcome === 'not-ready' ? 0 : 1,
    });
  }

  /** Throttled (or not ready) for longer than the notifier retries: visible to the runbook. */
  markStuck(outboxId: string, error: string, outcome: Exclude<ReleaseOutcome, 'attempt'>): Promise<void> {
    return this.finish(outboxId, `SET #status = :stuck, lastError = :e ADD ${COUNTER[outcome]} :n`, {
      ':stuck': 'stuck',
      ':e': error,
      ':n': outcome === 'not-ready' ? 0 : 1,
    });
  }

  markFailed(outboxId: string, error: string): Promise<void> {
    return this.finish(outboxId, 'SET #status = :failed, lastError = :e ADD attempts :one', {
      ':failed': 'failed',
      ':e': error,
      ':one': 1,
    });
  }
}

/**
 * Operator view (`npm run admin -- outbox --status <status>`): the outbox items of a status. The
 * outbox has no index of its own, so this reads the whole table (an operator's occasional read,
 * never a function's): each page filtered to outbox items of that status.
 */
export async function listOutbox(
  db: DynamoDBDocumentClient,
  tableName: string,
  status: OutboxStatus,
): Promise<OutboxItem[]> {
  const items: OutboxItem[] = [];
  const pages = scanPages(db, {
    TableName: tableName,
    FilterExpression: 'entity = :outbox AND #status = :s',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':outbox': 'outbox', ':s': status },
  });
  for await (const page of pages) items.push(...(page.Items ?? []).map((i) => strip<OutboxItem>(i)));
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/**
 * Operator action: queues a failed, stuck (or stuck pending) item again. The stream hands only new
 * items to the notifier, so the item is deleted and written anew, as pending with no attempts: in
 * two transactions (one cannot hold two writes of one item), the first deleting it and writing the
 * fresh item ahead under its requeue key, the second writing it and removing that. A run cut off
 * between the two leaves the item to write: the next run of the command (the runbook's "run it
 * again") finishes it.
 */
export async function requeue(
  db: DynamoDBDocumentClient,
  tableName: string,
  outboxId: string,
): Promise<OutboxItem> {
  const read = (Key: Record<string, string>) =>
    db.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }));
  const [{ Item }, { Item: ahead }] = await Promise.all([
    read(keys.outbox(outboxId)),
    read(keys.outboxRequeue(outboxId)),
  ]);
  if (!Item && ahead) return finishRequeue(db, tableName, ahead.item as OutboxItem);
  if (!Item) throw new Error(`outbox item ${outboxId} not found`);
  const item = strip<OutboxItem>(Item);
  if (item.status !== 'failed' && item.status !== 'stuck' && item.status !== 'pending')
    throw new Error(
      `outbox item ${outboxId} is ${item.status}; only failed, stuck or pending items are requeued`,
    );
  const { lastError: _e, throttles: _t, ...rest } = item;
  const fresh: OutboxItem = { ...rest, status: 'pending', attempts: 0, createdAt: clock.now().toISOString() };
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: tableName,
            Key: keys.outbox(outboxId),
            ConditionExpression: '#status = :s',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':s': item.status },
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.outboxRequeue(outboxId), entity: 'outbox-requeue', item: fresh },
          },
        },
      ],
    }),
  );
  return finishRequeue(db, tableName, fresh);
}

/** Writes the requeued item and removes its requeue record (an item written since stays). */
async function finishRequeue(db: DynamoDBDocumentClient, tableName: string, fresh: OutboxItem) {
  const done = new DeleteCommand({ TableName: tableName, Key: keys.outboxRequeue(fresh.outboxId) });
  try {
    await db.send(
      new TransactWriteCommand({ TransactItems: [outboxPut(tableName, fresh), { Delete: done.input }] }),
    );
  } catch (error) {
    // The item was written anew meanwhile (another run): it stands.
    conditionOutcome(error, [[0, 'written']]);
    await db.send(done);
  }
  return fresh;
}

/** The container's store, on the configured table (made on first use). */
export const outboxStore: () => OutboxStore = /* @__PURE__ */ containerStore(OutboxStore);
