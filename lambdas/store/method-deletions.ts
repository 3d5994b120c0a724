/**
 * Deleting saved methods while payments use them (docs/architecture.md "Safe method deletion"):
 * the mark and the record written ahead, the moves, and the transaction that finishes or undoes
 * it. Every step is one conditional transaction, so a deletion cut off anywhere (a crash, a
 * timeout) leaves either the method with its mark and record (the sweeper, or the next request,
 * finishes or undoes it) or nothing: never a payment that names a deleted method.
 *
 * 1. `begin`: the methods get the deletion mark (their revision moves, so a PUT that read them
 *    before reads again and keeps the mark) and the record is written, with its GSI2 entry
 *    `DELETING` / `<due>#<payorId>#<target>`; from then on no payment can take them (the fence).
 * 2. `movePayments`: a batch of pending payments moves to the replacement, each announced by
 *    `payment.updated`, its use moved, its group still pending, the replacement still usable;
 *    `moveSeriesPayments`: the same for payments of series, each series' revision moved on.
 * 3. `finishMethod` / `finishPayor`: the method (or the payor with its methods) deleted with the
 *    record, only while the mark is still this deletion's; or `undo`: the mark and record go.
 */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import { nextSequence } from '#domain/events';
import { paymentEvent, type Payment } from '#domain/groups';
import { DELETION_SWEEP_AFTER_SECONDS, type DeletionRecord } from '#domain/method-deletions';
import type { Payor, SavedMethod } from '#domain/payors';
import { centsOf, type SeriesPayment } from '#domain/series';
import { keys } from './keys';
import { announcedUpdate, eventPut } from './events';
import { conditionOutcome } from '#shared/ddb';
import { containerStore, strip } from './items';
import { readAll } from './paging';
import { seriesPaymentMoveItems } from './method-series-uses';
import {
  methodUsable,
  methodUsableAndTouched,
  methodUsableForSeries,
  useDelete,
  usePut,
} from './method-uses';
import { atRevision, type PayorWithMethods } from './payors';
import { clock } from '#shared/clock';

/**
 * Payments moved by one transaction: 4 items each (payment, event, use out, use in) with a
 * condition per group, or 3 (a series' payment, use out, use in) with its series: ≤ 100 in all.
 */
export const MOVE_BATCH = 16;

/** A payment of a series to move, as listed (store/method-series-uses.ts). */
interface SeriesPaymentMove {
  seriesId: string;
  merchantId: string;
  payment: SeriesPayment;
}

const targetOf = (record: Pick<DeletionRecord, 'mark' | 'methodIds'>) =>
  record.mark.payor ? ('PAYOR' as const) : { methodId: record.methodIds[0]! };

const recordKey = (record: Pick<DeletionRecord, 'payorId' | 'mark' | 'methodIds'>) =>
  keys.deletion(record.payorId, targetOf(record));

/** The condition that a method still carries this deletion's mark. */
const MARKED = 'deletion.#token = :token';

type BeginOutcome = 'ok' | 'changed';
type FinishOutcome = 'ok' | 'changed';

export class MethodDeletionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Marks the methods (each as read: its revision) and writes the record; with a replacement,
   * only while it is there and not being deleted itself, and its revision moved (a deletion of the
   * replacement begun on an earlier read is refused). `changed`: a method changed or is marked
   * already since read (the caller reads again).
   */
  async begin(record: DeletionRecord, methods: readonly SavedMethod[]): Promise<BeginOutcome> {
    const due = new Date(Date.parse(record.mark.startedAt) + DELETION_SWEEP_AFTER_SECONDS * 1000);
    const target = targetOf(record);
    const items: object[] = methods.map((m) => {
      const seen = atRevision(m.revision);
      return {
        Update: {
          TableName: this.tableName,
          Key: keys.method(m.payorId, m.savedPaymentMethodId),
          UpdateExpression: 'SET deletion = :mark ADD revision :one',
          ConditionExpression: `(${seen.ConditionExpression}) AND attribute_not_exists(deletion)`,
          ExpressionAttributeValues: { ...seen.ExpressionAttributeValues, ':mark': record.mark, ':one': 1 },
        },
      };
    });
    items.push({
      Put: {
        TableName: this.tableName,
        Item: {
          ...recordKey(record),
          entity: 'deletion',
          ...record,
          gsi2pk: keys.deletingPartition,
          gsi2sk: keys.deletingSort(
            due.toISOString(),
            record.payorId,
            target === 'PAYOR' ? 'PAYOR' : target.methodId,
          ),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    if (record.mark.replaceWith !== undefined)
      items.push(methodUsableAndTouched(this.tableName, `${record.payorId}/${record.mark.replaceWith}`));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome(error, [['any', 'changed' as const]]);
    }
  }

  /** The record of a deletion of this payor's method (or of the payor), if one is under way. */
  async find(payorId: string, target: 'PAYOR' | { methodId: string }): Promise<DeletionRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.deletion(payorId, target),
        ConsistentRead: true,
      }),
    );
    return Item ? strip<DeletionRecord & { entity: string }>(Item) : undefined;
  }

  /** Records older than their due time (ISO-8601 `now`), oldest first: the sweeper's work. */
  async stale(now: string, limit: number): Promise<DeletionRecord[]> {
    const items = await readAll(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p AND gsi2sk < :now',
        ExpressionAttributeValues: { ':p': keys.deletingPartition, ':now': now },
        ProjectionExpression: 'pk, sk',
        Limit: limit,
      },
      limit,
    );
    const records = await Promise.all(
      items.map(async (i) => {
        const { Item } = await this.db.send(
          new GetCommand({ TableName: this.tableName, Key: { pk: i.pk, sk: i.sk }, ConsistentRead: true }),
        );
        return Item ? strip<DeletionRecord>(Item) : undefined;
      }),
    );
    return records.filter((r): r is DeletionRecord => r !== undefined);
  }

  /**
   * Moves these payments (of pending groups, unanswered, still naming the deleted method) to the
   * replacement, each announced by `payment.updated`: one transaction. False when any of them, its
   * group or the replacement changed since read (the caller lists the uses again).
   */
  async movePayments(record: DeletionRecord, payments: readonly Payment[], now: Date): Promise<boolean> {
    const to = `${record.payorId}/${record.mark.replaceWith!}`;
    const items: object[] = [];
    for (const previous of payments) {
      const moved: Payment = {
        ...previous,
        profileId: to,
        lastUpdated: now.toISOString(),
        eventSeq: nextSequence(previous.eventSeq),
      };
      items.push(
        ...announcedUpdate(
          this.tableName,
          {
            Key: keys.payment(previous.paymentGroupId, previous.paymentId),
            set: 'profileId = :to, lastUpdated = :now',
            condition:
              'profileId = :from AND deleted = :false AND (attribute_not_exists(authResponse) OR authResponse = :null)',
            values: {
              ':to': to,
              ':from': previous.profileId,
              ':now': now.toISOString(),
              ':false': false,
              ':null': null,
            },
          },
          previous.eventSeq,
          paymentEvent('payment.updated', moved, now),
        ),
        useDelete(this.tableName, previous),
        usePut(this.tableName, moved),
      );
    }
    for (const groupId of new Set(payments.map((p) => p.paymentGroupId))) {
      items.push({
        ConditionCheck: {
          TableName: this.tableName,
          Key: keys.group(groupId),
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending' },
        },
      });
    }
    items.push(methodUsable(this.tableName, to));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      return conditionOutcome(error, [['any', false]]);
    }
  }

  /**
   * Moves these payments of series (still naming the deleted method) to the replacement: one
   * transaction, each payment's use moved with it. Each series' revision moves on, so that a write
   * of it that read it before (an occurrence's group made from the payments as they were, a PUT)
   * is refused and reads again: no group is made from a payment on the deleted method once it has
   * moved. False when a payment or the replacement changed since read, or the replacement was
   * revoked (the caller lists again, or gives up).
   */
  async moveSeriesPayments(record: DeletionRecord, moves: readonly SeriesPaymentMove[]): Promise<boolean> {
    const to = `${record.payorId}/${record.mark.replaceWith!}`;
    const items: object[] = [];
    // A payment suspended (its method revoked) is active again on its new method.
    for (const { seriesId, merchantId, payment } of moves)
      items.push(...seriesPaymentMoveItems(this.tableName, seriesId, merchantId, payment, to));
    for (const seriesId of new Set(moves.map((m) => m.seriesId))) {
      // Its suspended payments active again: each occurrence charges them too.
      const lifted = moves.filter((m) => m.seriesId === seriesId && m.payment.status === 'suspended');
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.series(seriesId),
          UpdateExpression: 'ADD revision :one, totalCents :lifted',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1, ':lifted': centsOf(lifted.map((m) => m.payment)) },
        },
      });
    }
    // Not onto a replacement revoked since it was checked: a revocation suspends the series'
    // payments it finds on the method, and these would be on it, active.
    items.push(methodUsableForSeries(this.tableName, to));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      return conditionOutcome(error, [['any', false]]);
    }
  }

  /**
   * Deletes the method (as read after its mark: its revision) with the record, the payor's count
   * and default moved as a plain delete does (`replacementDefault` when it is the default), and
   * its `payment_method.deleted` event. `changed`: the payor or the method changed since read.
   */
  async finishMethod(
    record: DeletionRecord,
    payor: Payor,
    method: SavedMethod,
    replacementDefault: string | undefined,
    event: ServiceEvent,
  ): Promise<FinishOutcome> {
    const methodId = method.savedPaymentMethodId;
    const isDefault = payor.defaultPaymentMethodId === methodId;
    const seen = atRevision(method.revision);
    const items: object[] = [
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.method(payor.payorId, methodId),
          ConditionExpression: `(${seen.ConditionExpression}) AND ${MARKED}`,
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ...seen.ExpressionAttributeValues, ':token': record.mark.token },
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: keys.payor(payor.payorId),
          UpdateExpression: isDefault
            ? 'ADD methodCount :minus, revision :plus SET defaultPaymentMethodId = :r, lastUpdated = :now'
            : 'ADD methodCount :minus, revision :plus SET lastUpdated = :now',
          ConditionExpression: isDefault
            ? 'methodCount > :one AND defaultPaymentMethodId = :m'
            : 'methodCount > :one AND defaultPaymentMethodId <> :m',
          ExpressionAttributeValues: {
            ':minus': -1,
            ':plus': 1,
            ':one': 1,
            ':m': methodId,
            ':now': clock.now().toISOString(),
            ...(isDefault && { ':r': replacementDefault }),
          },
        },
      },
      {
        Delete: {
          TableName: this.tableName,
          Key: recordKey(record),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ];
    if (isDefault) {
      if (!replacementDefault) return 'changed';
      items.push(methodUsable(this.tableName, `${payor.payorId}/${replacementDefault}`));
    }
    items.push(eventPut(this.tableName, event));
    return this.write(items);
  }

  /** Deletes the payor with its methods (each still marked by this deletion) and the record. */
  async finishPayor(
    record: DeletionRecord,
    found: PayorWithMethods,
    event: ServiceEvent,
  ): Promise<FinishOutcome> {
    const { payor, methods } = found;
    const items: object[] = [
      {
        Delete: { TableName: this.tableName, Key: keys.payor(payor.payorId), ...atRevision(payor.revision) },
      },
      ...methods.map((m) => ({
        Delete: {
          TableName: this.tableName,
          Key: keys.method(m.payorId, m.savedPaymentMethodId),
          ConditionExpression: MARKED,
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': record.mark.token },
        },
      })),
      {
        Delete: {
          TableName: this.tableName,
          Key: recordKey(record),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ];
    if (payor.customerAccountId !== undefined) {
      items.push({
        Delete: { TableName: this.tableName, Key: keys.customer(payor.merchantId, payor.customerAccountId) },
      });
    }
    items.push(eventPut(this.tableName, event));
    return this.write(items);
  }

  /**
   * Undoes a deletion: each method that still carries this mark loses it (its revision moves),
   * and the record goes. `changed`: the record is gone already (finished or undone by another).
   */
  async undo(record: DeletionRecord, marked: readonly SavedMethod[]): Promise<FinishOutcome> {
    const items: object[] = marked.map((m) => ({
      Update: {
        TableName: this.tableName,
        Key: keys.method(m.payorId, m.savedPaymentMethodId),
        UpdateExpression: 'REMOVE deletion ADD revision :one',
        ConditionExpression: MARKED,
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': record.mark.token, ':one': 1 },
      },
    }));
    items.push({
      Delete: {
        TableName: this.tableName,
        Key: recordKey(record),
        ConditionExpression: 'attribute_exists(pk)',
      },
    });
    return this.write(items);
  }

  private async write(items: object[]): Promise<FinishOutcome> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome(error, [['any', 'changed' as const]]);
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const methodDeletionStore: () => MethodDeletionStore =
  /* @__PURE__ */ containerStore(MethodDeletionStore);
