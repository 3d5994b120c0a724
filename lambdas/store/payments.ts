/**
 * Payment items in DynamoDB. Every change that touches a payment and its group's totals is one
 * transaction with conditions, so concurrent writers cannot break `paymentCount`/`totalCents`,
 * and nothing changes once a group has left `pending`.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { nextSequence } from '#domain/events';
import { attemptOf, paymentEvent, type Payment } from '#domain/groups';
import { parseProfileId } from '#domain/payors';
import type { AuthResponse } from '#domain/processing';
import type { PaymentRetry } from '#domain/retries';
import type { OutboxItem } from '#domain/notifications';
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import { conditionOutcome } from '#shared/ddb';
import { batchGet, containerStore, type Item, strip, updateIf } from './items';
import { announcedUpdate, eventPut, sequenced, writeAnnounced } from './events';
import {
  firstAnswerWrites,
  retryAnswerWrites,
  retryCancelWrites,
  groupTotals,
  scheduledRetryDeleteWrites,
  type AnswerRecord,
  type RetryWriteOutcome,
  type Slot,
} from './payment-writes';
import { methodUsable, useDelete, usePut } from './method-uses';
import { outboxPut } from './outbox';
import { readAll, readAfter, readOn, readPage, type Page } from './paging';

export const paymentItem = (payment: Payment): Item => ({
  ...keys.payment(payment.paymentGroupId, payment.paymentId),
  entity: 'payment',
  ...payment,
});

/** Lost races (a change announced between read and write) before an answer's record gives up. */
const ANSWER_ATTEMPTS = 5;

/**
 * Outcome of a conditional payment change. `method-unavailable`: the method the payment is to
 * name is gone or being deleted (store/method-uses.ts, the fence).
 */
export type WriteOutcome = 'ok' | 'group-not-editable' | 'payment-changed' | 'method-unavailable';

export type { AnswerRecord, RetryWriteOutcome, Slot } from './payment-writes';

export interface PaymentStore {
  getPayment(groupId: string, paymentId: string): Promise<Payment | undefined>;
  /** The named payments of a group that exist (by key: the cost follows the list, not the group). */
  getPayments(groupId: string, paymentIds: readonly string[]): Promise<Payment[]>;
  /** All payments of a group, deleted ones included, in creation order. */
  listPayments(groupId: string): Promise<Payment[]>;
  /** Up to `limit` payments after the cursor (sort key), and the cursor to continue from. */
  paymentsAfter(
    groupId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ payments: Payment[]; cursor: string | null }>;
  /** A numbered page of the payments (deleted included) and how many there are in all. */
  pagePayments(groupId: string, page: Page): Promise<{ payments: Payment[]; total: number }>;
  /**
   * Up to `limit` payments after the payment `afterId` (null: from the first), in creation order;
   * undefined past `maxBytes` of them (store/paging.ts readOn).
   */
  paymentsAfterId(
    groupId: string,
    afterId: string | null,
    limit: number,
    maxBytes?: number,
  ): Promise<Payment[] | undefined>;
  /**
   * A new payment, its group's totals and its outbox items, while the group is pending, has
   * room, and (with `slot`) is still scheduled at the slot the notice names.
   */
  addPayment(payment: Payment, now: Date, outbox?: OutboxItem[], slot?: Slot): Promise<WriteOutcome>;
  /** Replaces a payment if it is still as read (same amount, not deleted). */
  replacePayment(previous: Payment, next: Payment, now: Date): Promise<WriteOutcome>;
  softDeletePayment(previous: Payment, now: Date): Promise<WriteOutcome>;
  /**
   * Writes a payment's first answer once (its authResponse, its first attempt, the retry it
   * decides, the decline notice): false when it has one already.
   */
  setAuthResponse(
    payment: Payment,
    authResponse: AuthResponse,
    now: Date,
    record?: AnswerRecord,
  ): Promise<boolean>;
  /**
   * Writes a retry's answer (attempt `record.attempt.attempt`) if the payment still waits for it
   * (its retry scheduled, that many attempts before): the authResponse becomes the retry's.
   */
  recordRetryAnswer(
    payment: Payment,
    authResponse: AuthResponse,
    record: AnswerRecord,
    now: Date,
  ): Promise<RetryWriteOutcome>;
  /**
   * A scheduled retry that will not run (nothing charged), announced by `payment.updated`, if the
   * payment is as read.
   */
  cancelRetry(payment: Payment, retry: PaymentRetry, now: Date): Promise<RetryWriteOutcome>;
  /**
   * Soft-deletes a payment of a processed group whose retry is scheduled, cancelling the retry,
   * while no retry round of the group is charging; the group's totals and summary follow.
   */
  deleteScheduledRetry(previous: Payment, now: Date): Promise<WriteOutcome>;
  /**
   * Records the void-or-refund responses, announced by `announce` when given; false when the
   * payment changed since read.
   */
  setReversals(
    payment: Payment,
    responses: VoidOrRefundResponse[],
    now: Date,
    announce?: 'payment.voided' | 'payment.refunded',
  ): Promise<boolean>;
}

export class DynamoPaymentStore implements PaymentStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getPayment(groupId: string, paymentId: string): Promise<Payment | undefined> {
    const { Item } = await this.db.send(
      // Strongly consistent: payment changes are decided on the payment as it is.
      new GetCommand({
        TableName: this.tableName,
        Key: keys.payment(groupId, paymentId),
        ConsistentRead: true,
      }),
    );
    return Item?.entity === 'payment' ? strip<Payment>(Item) : undefined;
  }

  async getPayments(groupId: string, paymentIds: readonly string[]): Promise<Payment[]> {
    const items = await batchGet(
      this.db,
      this.tableName,
      paymentIds.map((id) => keys.payment(groupId, id)),
    );
    return items.filter((i) => i.entity === 'payment').map((i) => strip<Payment>(i));
  }

  /** Creation order: payment ids are UUIDv7. */
  async listPayments(groupId: string): Promise<Payment[]> {
    const items = await readAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':p': keys.paymentPrefix },
    });
    return items.map((i) => strip<Payment>(i));
  }

  async paymentsAfter(
    groupId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ payments: Payment[]; cursor: string | null }> {
    const page = await readAfter(
      this.db,
      this.tableName,
      keys.group(groupId).pk,
      keys.paymentPrefix,
      cursor,
      limit,
    );
    const payments = page.items.filter((i) => i.entity === 'payment').map((i) => strip<Payment>(i));
    return { payments, cursor: page.cursor };
  }

  async pagePayments(groupId: string, page: Page): Promise<{ payments: Payment[]; total: number }> {
    const { items, total } = await readPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':p': keys.paymentPrefix },
      },
      page,
    );
    return { payments: items.map((i) => strip<Payment>(i)), total };
  }

  async paymentsAfterId(groupId: string, afterId: string | null, limit: number, maxBytes?: number) {
    const cursor = afterId === null ? null : keys.payment(groupId, afterId).sk;
    const { pk } = keys.group(groupId);
    const items = await readOn(this.db, this.tableName, pk, keys.paymentPrefix, cursor, limit, maxBytes);
    return items?.filter((i) => i.entity === 'payment').map((i) => strip<Payment>(i));
  }

  /**
   * Item 0 is the payment, item 1 its group and, when the payment takes a method, item 2 the
   * method's fence: the cancelled one says who refused.
   */
  private async transact(items: object[], fenced = false): Promise<WriteOutcome> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome<WriteOutcome>(error, [
        [1, 'group-not-editable'],
        ...(fenced ? ([[2, 'method-unavailable']] as const) : []),
        [0, 'payment-changed'],
      ]);
    }
  }

  /** A new payment (its first event, `payment.created`, written with it) and its group's totals. */
  async addPayment(
    payment: Payment,
    now: Date,
    outbox: OutboxItem[] = [],
    slot?: Slot,
  ): Promise<WriteOutcome> {
    const created: Payment = { ...payment, eventSeq: 1 };
    return this.transact(
      [
        {
          Put: {
            TableName: this.tableName,
            Item: paymentItem(created),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        groupTotals(this.tableName, payment, 1, payment.amountCents, now, slot),
        methodUsable(this.tableName, payment.profileId),
        usePut(this.tableName, payment),
        ...outbox.map((o) => outboxPut(this.tableName, o)),
        eventPut(this.tableName, paymentEvent('payment.created', created, now)),
      ],
      true,
    );
  }

  /** The payment replaced, announced by `payment.updated`, if it is as read. */
  async replacePayment(previous: Payment, next: Payment, now: Date): Promise<WriteOutcome> {
    const seq = sequenced(previous.eventSeq);
    const announced: Payment = { ...next, eventSeq: nextSequence(previous.eventSeq) };
    // A new method: the use moves, and the new method must be there and not being deleted.
    const moves =
      parseProfileId(previous.profileId).savedPaymentMethodId !==
      parseProfileId(next.profileId).savedPaymentMethodId;
    return this.transact(
      [
        {
          Put: {
            TableName: this.tableName,
            Item: paymentItem(announced),
            // The profileId as read: the use removed below is the one the payment had.
            ConditionExpression: `amountCents = :old AND deleted = :false AND lastUpdated = :lu AND profileId = :oldProfile AND ${seq.condition}`,
            ExpressionAttributeValues: {
              ':old': previous.amountCents,
              ':false': false,
              ':lu': previous.lastUpdated,
              ':oldProfile': previous.profileId,
              ...seq.conditionValues,
            },
          },
        },
        groupTotals(this.tableName, next, 0, next.amountCents - previous.amountCents, now),
        ...(moves
          ? [
              methodUsable(this.tableName, next.profileId),
              useDelete(this.tableName, previous),
              usePut(this.tableName, next),
            ]
          : []),
        eventPut(this.tableName, paymentEvent('payment.updated', announced, now)),
      ],
      moves,
    );
  }

  /** The payment soft-deleted, announced by `payment.deleted`, if it is as read. */
  async softDeletePayment(previous: Payment, now: Date): Promise<WriteOutcome> {
    const deleted: Payment = {
      ...previous,
      deleted: true,
      lastUpdated: now.toISOString(),
      eventSeq: nextSequence(previous.eventSeq),
    };
    const [update, event] = announcedUpdate(
      this.tableName,
      {
        Key: keys.payment(previous.paymentGroupId, previous.paymentId),
        set: 'deleted = :true, lastUpdated = :now',
        condition: 'deleted = :false AND amountCents = :old',
        values: { ':true': true, ':false': false, ':now': now.toISOString(), ':old': previous.amountCents },
      },
      previous.eventSeq,
      paymentEvent('payment.deleted', deleted, now),
    );
    return this.transact([
      update!,
      groupTotals(this.tableName, previous, -1, -previous.amountCents, now),
      useDelete(this.tableName, previous),
      event!,
    ]);
  }

  /**
   * The payment's answer, announced by `payment.approved`, `.declined` or `.failed` (and
   * `payment.retry_scheduled` when it schedules a retry), once: false when it has one already (a
   * retried step). A change announced between the batch's read and this write (a stale read of the
   * page) is read again and the write retried.
   */
  async setAuthResponse(
    payment: Payment,
    authResponse: AuthResponse,
    now: Date,
    record: AnswerRecord = { attempt: attemptOf(1, authResponse) },
  ): Promise<boolean> {
    let current: Payment | undefined = payment;
    for (let i = 0; i < ANSWER_ATTEMPTS && current; i++) {
      if (current.authResponse) return false;
      const answered: Payment = {
        ...current,
        authResponse,
        attempts: [record.attempt],
        ...(record.retry && { retry: record.retry }),
        lastUpdated: now.toISOString(),
      };
      const written = await writeAnnounced(
        this.db,
        firstAnswerWrites(this.tableName, current, answered, record, now),
      );
      if (written) return true;
      current = await this.getPayment(payment.paymentGroupId, payment.paymentId);
    }
    if (current?.authResponse) return false;
    throw new Error(`payment ${payment.paymentId}: its answer could not be recorded (it kept changing)`);
  }

  async recordRetryAnswer(
    payment: Payment,
    authResponse: AuthResponse,
    record: AnswerRecord,
    now: Date,
  ): Promise<RetryWriteOutcome> {
    const writes = retryAnswerWrites(this.tableName, payment, authResponse, record, now);
    return (await writeAnnounced(this.db, writes)) ? 'ok' : 'changed';
  }

  async cancelRetry(payment: Payment, retry: PaymentRetry, now: Date): Promise<RetryWriteOutcome> {
    const writes = retryCancelWrites(this.tableName, payment, retry, now);
    return (await writeAnnounced(this.db, writes)) ? 'ok' : 'changed';
  }

  async deleteScheduledRetry(previous: Payment, now: Date): Promise<WriteOutcome> {
    return this.transact(scheduledRetryDeleteWrites(this.tableName, previous, now));
  }

  /**
   * The payment's reversals, if the payment is as read; with `announce`, announced by that event
   * (a reversal done: `payment.voided`, `payment.refunded`), without (a refund only scheduled), not.
   */
  async setReversals(
    payment: Payment,
    responses: VoidOrRefundResponse[],
    now: Date,
    announce?: 'payment.voided' | 'payment.refunded',
  ): Promise<boolean> {
    const change = {
      Key: keys.payment(payment.paymentGroupId, payment.paymentId),
      set: 'voidOrRefundResponses = :r, lastUpdated = :now',
      condition: 'lastUpdated = :seen',
      values: { ':r': responses, ':now': now.toISOString(), ':seen': payment.lastUpdated },
    };
    if (!announce) {
      return updateIf(this.db, {
        TableName: this.tableName,
        Key: change.Key,
        UpdateExpression: `SET ${change.set}`,
        ConditionExpression: change.condition,
        ExpressionAttributeValues: change.values,
      });
    }
    const reversed: Payment = {
      ...payment,
      voidOrRefundResponses: responses,
      lastUpdated: now.toISOString(),
      eventSeq: nextSequence(payment.eventSeq),
    };
    return writeAnnounced(
      this.db,
      announcedUpdate(this.tableName, change, payment.eventSeq, paymentEvent(announce, reversed, now)),
    );
  }
}

/** The container's store, on the configured table (made on first use). */
export const paymentStore: () => PaymentStore = /* @__PURE__ */ containerStore(DynamoPaymentStore);
