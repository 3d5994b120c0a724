/**
 * Webhook deliveries in DynamoDB (docs/architecture.md "Data model"): one item per (endpoint,
 * event), in the lane of its endpoint and object (`WHLANE#<endpoint>#<object>` / `SEQ#<sequence>`),
 * so that the order rule reads an object's earlier and later deliveries to an endpoint with one
 * consistent Query. An endpoint's deliveries are listed on GSI1 (`WHDELIVERIES#<endpoint>` /
 * `<createdAt>#<eventId>`: webhook-delivery-list.ts); while pending a delivery is on the sparse
 * GSI2 (`WHDUE#<shard>` / `<checkAt>#<eventId>`), where the webhook sweep finds those whose queue
 * message is lost. Every change of a delivery holds only on the `round` it read, and a claim also
 * on no live lease: two messages for one delivery make one attempt. Items expire by TTL with their
 * event. The event cursors and the merchant's event range the fan-out reads are in
 * event-cursors.ts.
 */
import {
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  deliveryExpiry,
  type DeliveryKey,
  type DeliveryStatus,
  type WebhookDelivery,
} from '#domain/webhooks';
import { cursorSeen } from './event-cursors';
import { listedAt } from './webhook-delivery-list';
import { keys } from './keys';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, sendThroughConflicts, setExpression, strip, updateIf, type Item } from './items';
import { readAll } from './paging';

const ENTITY = 'webhook-delivery';

const keyOf = (d: DeliveryKey) => keys.webhookDelivery(d.webhookEndpointId, d.objectId, d.sequence);
const dueSort = (d: Pick<WebhookDelivery, 'eventId'>, checkAt: string) => `${checkAt}#${d.eventId}`;

/** A turn's result on a delivery (`settle`, `createSettled`). */
export interface DeliveryChange {
  status: DeliveryStatus;
  attempts: number;
  round: number;
  lastStatusCode?: number;
  lastError?: string;
  lastAttemptAt?: string;
  /** Pending only. */
  nextAttemptAt?: string;
  /** Pending only: when the sweeper re-enqueues it if no message came. */
  checkAt?: string;
}

/** A settle that held: whether a later delivery of the lane waits for this one. */
export type Settled = false | { waitedFor: boolean };

/** The due index's shards (GSI2 `WHDUE#<n>`): the webhook sweep reads each. */
export const dueShards = (): string[] => keys.webhookDueShards();

class DynamoWebhookDeliveryStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Writes a new delivery once; `exists` when there is one (in any status). A pending one goes on
   * the due index (at its `checkAt`); a finished one (`createSettled`) does not.
   */
  async create(d: WebhookDelivery, now: Date): Promise<'created' | 'exists'> {
    try {
      await this.db.send(new UpdateCommand(this.creation(d, now)));
      return 'created';
    } catch (error) {
      if (isConditionFailure(error)) return 'exists';
      throw error;
    }
  }

  /**
   * Writes new pending deliveries of one event and marks the event seen on its object's cursor, in
   * one transaction (at most MAX_WEBHOOK_ENDPOINTS records and the cursor): `exists` when any of
   * the records is there already (a repeat's or a replay's), and then nothing is written.
   */
  async createSeen(
    ds: readonly WebhookDelivery[],
    seen: { objectId: string; sequence: number },
    now: Date,
  ): Promise<'created' | 'exists'> {
    const send = () =>
      this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            ...ds.map((d) => ({ Update: this.creation(d, now) })),
            { Update: cursorSeen(this.tableName, seen.objectId, seen.sequence, now) },
          ],
        }),
      );
    try {
      await sendThroughConflicts(send);
      return 'created';
    } catch (error) {
      return conditionOutcome(error, [['any', 'exists' as const]]);
    }
  }

  /** The conditional write of a new delivery: `create`'s, or an item of `createSeen`'s transaction. */
  private creation(d: WebhookDelivery, now: Date) {
    const item: Item = {
      ...keyOf(d),
      entity: ENTITY,
      ...listedAt(d),
      ...(d.status === 'pending' && {
        gsi2pk: keys.webhookDueShard(d.eventId, d.webhookEndpointId),
        gsi2sk: dueSort(d, d.checkAt!),
      }),
      expiresAt: deliveryExpiry(d.createdAt, now),
      ...d,
    };
    return {
      TableName: this.tableName,
      Key: keyOf(d),
      ...setExpression(item, ['pk', 'sk']),
      ConditionExpression: 'attribute_not_exists(pk)',
    };
  }

  /**
   * A replay: the delivery pending again from its first turn (created if missing); one already
   * pending is left as it is (it is on its way): `pending-already`.
   */
  async replay(d: WebhookDelivery, now: Date): Promise<'reset' | 'pending-already'> {
    const fields: Item = {
      entity: ENTITY,
      ...listedAt(d),
      gsi2pk: keys.webhookDueShard(d.eventId, d.webhookEndpointId),
      gsi2sk: dueSort(d, d.checkAt!),
      expiresAt: deliveryExpiry(d.createdAt, now),
      webhookEndpointId: d.webhookEndpointId,
      merchantId: d.merchantId,
      eventId: d.eventId,
      type: d.type,
      objectId: d.objectId,
      sequence: d.sequence,
      createdAt: d.createdAt,
      status: 'pending',
      attempts: 0,
      round: 0,
      startedAt: d.startedAt,
      nextAttemptAt: d.nextAttemptAt,
      checkAt: d.checkAt,
    };
    const set = setExpression(fields, []);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(d),
          UpdateExpression: `${set.UpdateExpression}, replays = if_not_exists(replays, :zero) + :one REMOVE leaseUntil`,
          ConditionExpression: 'attribute_not_exists(pk) OR #status <> :pendingStatus',
          ExpressionAttributeNames: set.ExpressionAttributeNames,
          ExpressionAttributeValues: {
            ...set.ExpressionAttributeValues,
            ':zero': 0,
            ':one': 1,
            ':pendingStatus': 'pending',
          },
        }),
      );
      return 'reset';
    } catch (error) {
      if (isConditionFailure(error)) return 'pending-already';
      throw error;
    }
  }

  async get(key: DeliveryKey): Promise<WebhookDelivery | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(key), ConsistentRead: true }),
    );
    return Item?.entity === ENTITY ? strip<WebhookDelivery>(Item) : undefined;
  }

  /** The nearest earlier delivery of the same object to the same endpoint that is still pending. */
  async earlierPending(key: DeliveryKey): Promise<WebhookDelivery | undefined> {
    return this.pendingBeside(key, 'earlier');
  }

  /** The next later delivery of the same object to the same endpoint that is pending. */
  async nextPending(key: DeliveryKey): Promise<WebhookDelivery | undefined> {
    return this.pendingBeside(key, 'later');
  }

  private async pendingBeside(key: DeliveryKey, side: 'earlier' | 'later') {
    const [item] = await readAll(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: `pk = :pk AND sk ${side === 'earlier' ? '<' : '>'} :sk`,
        FilterExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': keys.webhookLane(key.webhookEndpointId, key.objectId),
          ':sk': keys.webhookSequenceSort(key.sequence),
          ':pending': 'pending',
        },
        ScanIndexForward: side === 'later',
        ConsistentRead: true,
      },
      1,
    );
    return item ? strip<WebhookDelivery>(item) : undefined;
  }

  /**
   * Takes the attempt: the delivery must still be pending at the round read, with no live lease.
   * While leased it counts as lost only after `checkAt`.
   */
  async claim(d: WebhookDelivery, now: Date, leaseUntil: string, checkAt: string): Promise<boolean> {
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keyOf(d),
      UpdateExpression: 'SET leaseUntil = :lease, checkAt = :check, gsi2sk = :due',
      ConditionExpression:
        '#status = :pending AND #round = :round AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :now)',
      ExpressionAttributeNames: { '#status': 'status', '#round': 'round' },
      ExpressionAttributeValues: {
        ':lease': leaseUntil,
        ':check': checkAt,
        ':due': dueSort(d, checkAt),
        ':pending': 'pending',
        ':round': d.round,
        ':now': now.toISOString(),
      },
    });
  }

  /**
   * A later delivery of the lane waits for this one (read at `d.round`, still pending): its end
   * releases the next (`Settled.waitedFor`). False when it changed meanwhile (read it again).
   */
  async markWaitedFor(d: WebhookDelivery): Promise<boolean> {
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keyOf(d),
      UpdateExpression: 'SET waitedFor = :yes',
      ConditionExpression: '#status = :pending AND #round = :round',
      ExpressionAttributeNames: { '#status': 'status', '#round': 'round' },
      ExpressionAttributeValues: { ':yes': true, ':pending': 'pending', ':round': d.round },
    });
  }

  /**
   * Records a turn's result (or a give-up) on the delivery read at `d.round`; the lease ends. A
   * pending delivery stays on the due index (at its new `checkAt`); a finished one leaves it.
   * False when the delivery had moved on; else whether a later one of its lane waits for it.
   */
  async settle(d: WebhookDelivery, change: DeliveryChange): Promise<Settled> {
    const fields: Item = {
      status: change.status,
      attempts: change.attempts,
      round: change.round,
      lastStatusCode: change.lastStatusCode,
      lastError: change.lastError,
      lastAttemptAt: change.lastAttemptAt,
      nextAttemptAt: change.status === 'pending' ? change.nextAttemptAt : undefined,
      checkAt: change.status === 'pending' ? change.checkAt : undefined,
      gsi2pk: change.status === 'pending' ? keys.webhookDueShard(d.eventId, d.webhookEndpointId) : undefined,
      gsi2sk: change.status === 'pending' ? dueSort(d, change.checkAt!) : undefined,
      leaseUntil: undefined,
    };
    // A field left undefined keeps its value unless it is one a settle clears.
    const clear = new Set([
      'nextAttemptAt',
      'checkAt',
      'gsi2pk',
      'gsi2sk',
      'leaseUntil',
      'lastError',
      'lastStatusCode',
    ]);
    const set = setExpression(fields, [], clear);
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(d),
          ...set,
          ConditionExpression: '#status = :pendingNow AND #round = :seenRound',
          ExpressionAttributeNames: { ...set.ExpressionAttributeNames, '#status': 'status' },
          ExpressionAttributeValues: {
            ...set.ExpressionAttributeValues,
            ':pendingNow': 'pending',
            ':seenRound': d.round,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return { waitedFor: out.Attributes?.waitedFor === true };
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * The first write of a delivery whose turn was taken before it had a record (the fan-out's
   * attempt of an object's first event: the event's queue message stood for it until now, and
   * comes back if this write never happens): the record as the turn left it, written once. False
   * when one exists (a replay, or a repeat of the fan-out, wrote it meanwhile: its own message
   * carries it); else as a settle, no later delivery waiting for it.
   */
  async createSettled(d: WebhookDelivery, change: DeliveryChange, now: Date): Promise<Settled> {
    const pending = change.status === 'pending';
    const record: WebhookDelivery = {
      ...d,
      status: change.status,
      attempts: change.attempts,
      round: change.round,
      lastStatusCode: change.lastStatusCode,
      lastError: change.lastError,
      lastAttemptAt: change.lastAttemptAt,
      nextAttemptAt: pending ? change.nextAttemptAt : undefined,
      checkAt: pending ? change.checkAt : undefined,
      leaseUntil: undefined,
    };
    return (await this.create(record, now)) === 'created' && { waitedFor: false };
  }

  /** Moves a pending delivery's next look to `checkAt` (no attempt): blocked, or waiting for a gap. */
  async defer(d: WebhookDelivery, now: Date, nextAttemptAt: string, checkAt: string): Promise<boolean> {
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keyOf(d),
      UpdateExpression: 'SET nextAttemptAt = :next, checkAt = :check, gsi2sk = :due',
      ConditionExpression:
        '#status = :pending AND #round = :round AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :now)',
      ExpressionAttributeNames: { '#status': 'status', '#round': 'round' },
      ExpressionAttributeValues: {
        ':next': nextAttemptAt,
        ':check': checkAt,
        ':due': dueSort(d, checkAt),
        ':pending': 'pending',
        ':round': d.round,
        ':now': now.toISOString(),
      },
    });
  }

  /** The sweeper's mark: a new message is on its way, look again at `checkAt` (if none moved it). */
  async touch(d: WebhookDelivery, checkAt: string): Promise<boolean> {
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keyOf(d),
      UpdateExpression: 'SET checkAt = :check, gsi2sk = :due',
      ConditionExpression: '#status = :pending AND checkAt = :seen',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':check': checkAt,
        ':due': dueSort(d, checkAt),
        ':pending': 'pending',
        ':seen': d.checkAt,
      },
    });
  }

  /** Pending deliveries of one due shard whose `checkAt` has passed, oldest first. */
  async due(shard: string, now: Date, limit: number): Promise<WebhookDelivery[]> {
    const items = await readAll(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk < :now',
        ExpressionAttributeValues: { ':shard': shard, ':now': now.toISOString() },
        Limit: limit,
      },
      limit,
    );
    return items.filter((i) => i.entity === ENTITY).map((i) => strip<WebhookDelivery>(i));
  }
}

/** The container's store, on the configured table (made on first use). */
export const webhookDeliveryStore: () => DynamoWebhookDeliveryStore =
  /* @__PURE__ */ containerStore(DynamoWebhookDeliveryStore);
