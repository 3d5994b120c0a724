/**
 * Payment items in DynamoDB. Every change that touches a payment and its group's totals is one
 * transaction with conditions, so concurrent writers cannot break `paymentCount`/`totalCents`,
 * and nothing changes once a group has left `pending`.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import { keys } from '#shared/keys';
import type { Group, Payment } from '#domain/groups';
import type { AuthResponse } from '#domain/processing';
import type { OutboxItem } from '#domain/notifications';
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import {
  batchGet,
  conditionOutcome,
  containerStore,
  isConditionFailure,
  type Item,
  queryAll,
  strip,
} from './items';
import { outboxPut } from './outbox';
import { readAfter, readPage, type Page } from './paging';

export const paymentItem = (payment: Payment): Item => ({
  ...keys.payment(payment.paymentGroupId, payment.paymentId),
  entity: 'payment',
  ...payment,
});

/** Outcome of a conditional payment change. */
export type WriteOutcome = 'ok' | 'group-not-editable' | 'payment-changed';

/** The schedule a payment-scheduled notice names. */
export type Slot = Pick<Group, 'scheduleDate' | 'scheduleHour'>;

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
  /** Up to `limit` payments after the payment `afterId` (null: from the first), in creation order. */
  paymentsAfterId(groupId: string, afterId: string | null, limit: number): Promise<Payment[]>;
  /**
   * A new payment, its group's totals and its outbox items, while the group is pending, has
   * room, and (with `slot`) is still scheduled at the slot the notice names.
   */
  addPayment(payment: Payment, now: Date, outbox?: OutboxItem[], slot?: Slot): Promise<WriteOutcome>;
  /** Replaces a payment if it is still as read (same amount, not deleted). */
  replacePayment(previous: Payment, next: Payment, now: Date): Promise<WriteOutcome>;
  softDeletePayment(previous: Payment, now: Date): Promise<WriteOutcome>;
  /** Writes a payment's authResponse once; false when one is there already. */
  setAuthResponse(payment: Payment, authResponse: AuthResponse, now: Date): Promise<boolean>;
  /** Records the void-or-refund responses; false when the payment changed since read. */
  setReversals(payment: Payment, responses: VoidOrRefundResponse[], now: Date): Promise<boolean>;
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
    const items = await queryAll(this.db, {
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

  async paymentsAfterId(groupId: string, afterId: string | null, limit: number): Promise<Payment[]> {
    const cursor = afterId === null ? null : keys.payment(groupId, afterId).sk;
    return (await this.paymentsAfter(groupId, cursor, limit)).payments;
  }

  /** The group-side half of every payment change: totals move only while it is pending. */
  private groupTotals(
    group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
    countDelta: number,
    centsDelta: number,
    now: Date,
    /** The slot the caller read (a notice names it): the change holds only if it is unchanged. */
    slot?: Slot,
  ) {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.group(group.paymentGroupId),
        UpdateExpression: 'ADD paymentCount :c, totalCents :t SET lastUpdated = :now',
        ConditionExpression:
          '#status = :pending AND merchantId = :m' +
          (countDelta > 0 ? ' AND paymentCount < :max' : '') +
          (slot ? ' AND scheduleDate = :d AND scheduleHour = :h' : ''),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':c': countDelta,
          ':t': centsDelta,
          ':now': now.toISOString(),
          ':pending': 'pending',
          ':m': group.merchantId,
          ...(countDelta > 0 && { ':max': MAX_PAYMENTS_PER_GROUP }),
          ...(slot && { ':d': slot.scheduleDate, ':h': slot.scheduleHour }),
        },
      },
    };
  }

  /** Item 0 is the payment, item 1 its group: the cancelled one says who refused. */
  private async transact(items: object[]): Promise<WriteOutcome> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome(error, [
        [1, 'group-not-editable'],
        [0, 'payment-changed'],
      ]);
    }
  }

  async addPayment(
    payment: Payment,
    now: Date,
    outbox: OutboxItem[] = [],
    slot?: Slot,
  ): Promise<WriteOutcome> {
    return this.transact([
      {
        Put: {
          TableName: this.tableName,
          Item: paymentItem(payment),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      this.groupTotals(payment, 1, payment.amountCents, now, slot),
      ...outbox.map((o) => outboxPut(this.tableName, o)),
    ]);
  }

  async replacePayment(previous: Payment, next: Payment, now: Date): Promise<WriteOutcome> {
    return this.transact([
      {
        Put: {
          TableName: this.tableName,
          Item: paymentItem(next),
          ConditionExpression: 'amountCents = :old AND deleted = :false AND lastUpdated = :lu',
          ExpressionAttributeValues: {
            ':old': previous.amountCents,
            ':false': false,
            ':lu': previous.lastUpdated,
          },
        },
      },
      this.groupTotals(next, 0, next.amountCents - previous.amountCents, now),
    ]);
  }

  async softDeletePayment(previous: Payment, now: Date): Promise<WriteOutcome> {
    return this.transact([
      {
        Update: {
          TableName: this.tableName,
          Key: keys.payment(previous.paymentGroupId, previous.paymentId),
          UpdateExpression: 'SET deleted = :true, lastUpdated = :now',
          ConditionExpression: 'deleted = :false AND amountCents = :old',
          ExpressionAttributeValues: {
            ':true': true,
            ':false': false,
            ':now': now.toISOString(),
            ':old': previous.amountCents,
          },
        },
      },
      this.groupTotals(previous, -1, -previous.amountCents, now),
    ]);
  }

  /** A second write (a retried step) is ignored. */
  async setAuthResponse(payment: Payment, authResponse: AuthResponse, now: Date): Promise<boolean> {
    return this.conditionally({
      TableName: this.tableName,
      Key: keys.payment(payment.paymentGroupId, payment.paymentId),
      UpdateExpression: 'SET authResponse = :a, lastUpdated = :now',
      ConditionExpression: 'attribute_not_exists(authResponse) OR authResponse = :null',
      ExpressionAttributeValues: { ':a': authResponse, ':null': null, ':now': now.toISOString() },
    });
  }

  async setReversals(payment: Payment, responses: VoidOrRefundResponse[], now: Date): Promise<boolean> {
    return this.conditionally({
      TableName: this.tableName,
      Key: keys.payment(payment.paymentGroupId, payment.paymentId),
      UpdateExpression: 'SET voidOrRefundResponses = :r, lastUpdated = :now',
      ConditionExpression: 'lastUpdated = :seen',
      ExpressionAttributeValues: {
        ':r': responses,
        ':now': now.toISOString(),
        ':seen': payment.lastUpdated,
      },
    });
  }

  /** An update that may be refused by its condition: true when applied. */
  private async conditionally(input: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand(input));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const paymentStore: () => PaymentStore = /* @__PURE__ */ containerStore(DynamoPaymentStore);
