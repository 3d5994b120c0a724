/**
 * Groups and their payments in DynamoDB. Every change that touches a payment and its group's
 * totals is one transaction with conditions, so concurrent writers cannot break
 * `paymentCount`/`totalCents`, and nothing changes once a group has left `pending`.
 */
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config';
import { cancellationCodes, ddb } from '#shared/ddb';
import { isConditionFailure, queryAll, strip, type Item } from './items';
import { outboxPut, outboxRecord } from './outbox';
import type { OutboxItem } from '#domain/notifications';
import {
  BadRequestError,
  GroupNotFoundError,
  PaymentNotFoundError,
  ServiceUnavailableError,
} from '#shared/errors';
import { keys } from '#shared/keys';
import type { ProcessingSummary } from '#domain/processing';
import {
  assertPaymentsEditable,
  slotOf,
  type Group,
  type GroupFilter,
  type Page,
  type Payment,
} from '#domain/groups';

/**
 * A group's size limit: one execution processes it within Step Functions' 25,000 history events
 * (about 0.05 events per payment) and its list stays pageable.
 */
export const MAX_PAYMENTS_PER_GROUP = 100_000;

/** One transaction holds at most 100 items: the group, its payments and their outbox items. */
export const MAX_TRANSACTION_ITEMS = 100;

export function groupItem(group: Group): Item {
  const slot = slotOf(group.scheduleDate, group.scheduleHour);
  return {
    ...keys.group(group.paymentGroupId),
    entity: 'group',
    ...group,
    gsi1pk: keys.merchantGroups(group.merchantId),
    gsi1sk: keys.merchantGroupSort(slot, group.paymentGroupId),
    ...(group.status === 'pending' && {
      gsi2pk: keys.dueShard(group.paymentGroupId),
      gsi2sk: keys.dueSort(slot, group.paymentGroupId),
    }),
  };
}

export const paymentItem = (payment: Payment): Item => ({
  ...keys.payment(payment.paymentGroupId, payment.paymentId),
  entity: 'payment',
  ...payment,
});

/** Outcome of a conditional payment change. */
export type WriteOutcome = 'ok' | 'group-not-editable' | 'payment-changed';

export class GroupStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getGroup(groupId: string): Promise<Group | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.group(groupId) }),
    );
    return Item?.entity === 'group' ? strip<Group>(Item) : undefined;
  }

  async getPayment(groupId: string, paymentId: string): Promise<Payment | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.payment(groupId, paymentId) }),
    );
    return Item?.entity === 'payment' ? strip<Payment>(Item) : undefined;
  }

  /**
   * Writes a new group with its payments. Up to 99 payments: one transaction. More: the payments
   * are batch-written first and the group item last, as the commit: until it exists no read or
   * write path can reach the payments (every path starts from the group), so the group appears
   * whole or not at all. A failed commit removes the written payments (best effort; leftovers
   * are unreachable).
   */
  async createGroup(group: Group, payments: Payment[], outbox: OutboxItem[] = []): Promise<void> {
    const groupPut = {
      TableName: this.tableName,
      Item: groupItem(group),
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    if (1 + payments.length + outbox.length <= MAX_TRANSACTION_ITEMS) {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: groupPut },
            ...payments.map((p) => ({
              Put: {
                TableName: this.tableName,
                Item: paymentItem(p),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            })),
            ...outbox.map((o) => outboxPut(this.tableName, o)),
          ],
        }),
      );
      return;
    }
    // Outbox items go with the payments: the notifier sends nothing until the group exists.
    const written = [
      ...payments.map((p) => ({ PutRequest: { Item: paymentItem(p) } })),
      ...outbox.map((o) => ({ PutRequest: { Item: outboxRecord(o) } })),
    ];
    await this.batchWrite(written);
    try {
      await this.db.send(new PutCommand(groupPut));
    } catch (error) {
      // A retried Put whose first attempt was applied fails its condition: the group is ours.
      const stored = isConditionFailure(error) ? await this.getGroup(group.paymentGroupId) : undefined;
      if (stored?.dateCreated === group.dateCreated) return;
      await this.batchWrite([
        ...payments.map((p) => ({ DeleteRequest: { Key: keys.payment(p.paymentGroupId, p.paymentId) } })),
        ...outbox.map((o) => ({ DeleteRequest: { Key: keys.outbox(o.outboxId) } })),
      ]).catch(() => undefined);
      throw error;
    }
  }

  private async batchWrite(requests: Item[]): Promise<void> {
    const chunks: Item[][] = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    const CONCURRENCY = 8;
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        let pending = chunks[next++]!;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 8) throw new Error('batch write: unprocessed items after retries');
          if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
          const out = await this.db.send(
            new BatchWriteCommand({ RequestItems: { [this.tableName]: pending as never } }),
          );
          pending = (out.UnprocessedItems?.[this.tableName] ?? []) as Item[];
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, chunks.length) }, worker));
  }

  /**
   * Changes a pending group's settings (never its totals or status). Returns the group as
   * stored after the change, or undefined when it is no longer pending.
   */
  async updateSettings(next: Group): Promise<Group | undefined> {
    const slot = slotOf(next.scheduleDate, next.scheduleHour);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(next.paymentGroupId),
          UpdateExpression:
            'SET scheduleDate = :d, scheduleHour = :h, locationId = :l, transactionInitiator = :ti, ' +
            'surchargeCompliance = :sc, allowPartial = :ap, lastUpdated = :lu, gsi1sk = :g1, gsi2sk = :g2',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':d': next.scheduleDate,
            ':h': next.scheduleHour,
            ':l': next.locationId,
            ':ti': next.transactionInitiator,
            ':sc': next.surchargeCompliance,
            ':ap': next.allowPartial,
            ':lu': next.lastUpdated,
            ':g1': keys.merchantGroupSort(slot, next.paymentGroupId),
            ':g2': keys.dueSort(slot, next.paymentGroupId),
            ':pending': 'pending',
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip<Group>(Attributes!);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Marks a pending group deleted and takes it out of the due index. False if not pending. */
  async markDeleted(groupId: string, now: Date): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression: 'SET #status = :deleted, lastUpdated = :now REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':deleted': 'deleted',
            ':pending': 'pending',
            ':now': now.toISOString(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The group-side half of every payment change: totals move only while it is pending. */
  private groupTotals(
    group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
    countDelta: number,
    centsDelta: number,
    now: Date,
    /** The slot the caller read (a notice names it): the change holds only if it is unchanged. */
    slot?: Pick<Group, 'scheduleDate' | 'scheduleHour'>,
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

  private async transact(items: object[], paymentIndex: number, groupIndex: number): Promise<WriteOutcome> {
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[groupIndex] === 'ConditionalCheckFailed') return 'group-not-editable';
      if (codes?.[paymentIndex] === 'ConditionalCheckFailed') return 'payment-changed';
      throw error;
    }
  }

  /**
   * A new payment, its group's totals and (with the notice flag) its outbox item: one
   * transaction. With a notice, `slot` is the schedule it names, and must still be the group's.
   */
  async addPayment(
    payment: Payment,
    now: Date,
    outbox: OutboxItem[] = [],
    slot?: Pick<Group, 'scheduleDate' | 'scheduleHour'>,
  ): Promise<WriteOutcome> {
    return this.transact(
      [
        {
          Put: {
            TableName: this.tableName,
            Item: paymentItem(payment),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        this.groupTotals(payment, 1, payment.amountCents, now, slot),
        ...outbox.map((o) => outboxPut(this.tableName, o)),
      ],
      0,
      1,
    );
  }

  /** Replaces a payment if it is still as read (same amount, not deleted). */
  async replacePayment(previous: Payment, next: Payment, now: Date): Promise<WriteOutcome> {
    return this.transact(
      [
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
      ],
      0,
      1,
    );
  }

  async softDeletePayment(previous: Payment, now: Date): Promise<WriteOutcome> {
    return this.transact(
      [
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
      ],
      0,
      1,
    );
  }

  /**
   * Claims a pending group for processing: the conditional write that makes exactly one of any
   * number of concurrent starters (ticks, triggers) the one that starts the execution. The group
   * keeps its due-index keys until it completes, so a claim whose execution never started is
   * found again by the next tick. Returns the group as stored before the claim when refused.
   */
  async claim(
    groupId: string,
    executionName: string,
    now: Date,
  ): Promise<{ claimed: true } | { claimed: false; group?: Group }> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET #status = :processing, executionName = :e, claimedAt = :now, lastUpdated = :now',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':pending': 'pending',
            ':e': executionName,
            ':now': now.toISOString(),
          },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { claimed: false, group: await this.getGroup(groupId) };
    }
  }

  /** Undoes a claim whose execution could not be started (only if still ours and unstarted). */
  async releaseClaim(groupId: string, executionName: string, now: Date): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression: 'SET #status = :pending, lastUpdated = :now REMOVE executionName, claimedAt',
          ConditionExpression: '#status = :processing AND executionName = :e',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':pending': 'pending',
            ':e': executionName,
            ':now': now.toISOString(),
          },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /** processing → processed, with the outcome summary; leaves the due index. */
  async complete(groupId: string, summary: ProcessingSummary): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET #status = :processed, processingSummary = :s, lastUpdated = :now REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processed': 'processed',
            ':processing': 'processing',
            ':s': summary,
            ':now': summary.processedAt,
          },
        }),
      )
      .catch((error: unknown) => {
        // Completed already (a retried step): nothing to do.
        if (!isConditionFailure(error)) throw error;
      });
  }

  /** Up to `limit` payments after the cursor (sort key), and the cursor to continue from. */
  async paymentsAfter(
    groupId: string,
    cursor: string | null,
    limit: number,
  ): Promise<{ payments: Payment[]; cursor: string | null }> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: cursor ? 'pk = :pk AND sk > :c' : 'pk = :pk AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':c': cursor ?? keys.paymentPrefix },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    const items = (out.Items ?? []).filter((i) => i.entity === 'payment');
    const last = out.LastEvaluatedKey?.sk as string | undefined;
    return { payments: items.map((i) => strip<Payment>(i)), cursor: last ?? null };
  }

  /** Writes a payment's authResponse once; a second write (retried step) is ignored. */
  async setAuthResponse(
    payment: Payment,
    authResponse: Record<string, unknown>,
    now: Date,
  ): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.payment(payment.paymentGroupId, payment.paymentId),
          UpdateExpression: 'SET authResponse = :a, lastUpdated = :now',
          ConditionExpression: 'attribute_not_exists(authResponse) OR authResponse = :null',
          ExpressionAttributeValues: { ':a': authResponse, ':null': null, ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Records the void-or-refund responses of a payment if it is unchanged since read. */
  async setReversals(payment: Payment, responses: Record<string, unknown>[], now: Date): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.payment(payment.paymentGroupId, payment.paymentId),
          UpdateExpression: 'SET voidOrRefundResponses = :r, lastUpdated = :now',
          ConditionExpression: 'lastUpdated = :seen',
          ExpressionAttributeValues: {
            ':r': responses,
            ':now': now.toISOString(),
            ':seen': payment.lastUpdated,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Groups due by `slot` (that hour and every earlier one: missed ticks are caught up), pending
   * or claimed-but-unfinished: one Query per shard of the sparse due index.
   */
  async dueGroups(
    slot: string,
  ): Promise<Pick<Group, 'paymentGroupId' | 'merchantId' | 'status' | 'claimedAt' | 'executionName'>[]> {
    const pages = await Promise.all(
      keys.dueShards().map((shard) =>
        queryAll(this.db, {
          TableName: this.tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :s AND gsi2sk < :end',
          ExpressionAttributeValues: { ':s': shard, ':end': `${slot}#\uffff` },
          ProjectionExpression: 'paymentGroupId, merchantId, #status, claimedAt, executionName',
          ExpressionAttributeNames: { '#status': 'status' },
        }),
      ),
    );
    return pages.flat().map((i) => strip(i));
  }

  /** All payments of a group, deleted ones included, in creation order (UUIDv7 ids). */
  async listPayments(groupId: string): Promise<Payment[]> {
    const items = await this.queryAll({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':p': keys.paymentPrefix },
    });
    return items.map((i) => strip<Payment>(i));
  }

  private queryAll(input: QueryCommandInput): Promise<Item[]> {
    return queryAll(this.db, input);
  }

  /** A merchant's groups by slot (GSI1): one Query, filters on the key where they can be. */
  private groupQuery(merchantId: string, filter: GroupFilter): QueryCommandInput {
    const values: Record<string, unknown> = { ':m': keys.merchantGroups(merchantId) };
    const names: Record<string, string> = {};
    let keyCondition = 'gsi1pk = :m';
    if (filter.date !== undefined) {
      keyCondition += ' AND begins_with(gsi1sk, :slot)';
      values[':slot'] =
        filter.hour !== undefined ? `${slotOf(filter.date, filter.hour)}#` : `${filter.date}T`;
    }
    const filters: string[] = [];
    if (filter.hour !== undefined && filter.date === undefined) {
      filters.push('scheduleHour = :h');
      values[':h'] = filter.hour;
    }
    if (filter.locationId !== undefined) {
      filters.push('locationId = :l');
      values[':l'] = filter.locationId;
    }
    if (filter.pendingOnly) {
      filters.push('#status IN (:pending, :processing)');
      names['#status'] = 'status';
      values[':pending'] = 'pending';
      values[':processing'] = 'processing';
    }
    return {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: keyCondition,
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
      ExpressionAttributeValues: values,
    };
  }

  async listGroups(merchantId: string, filter: GroupFilter): Promise<Group[]> {
    return (await this.queryAll(this.groupQuery(merchantId, filter))).map((i) => strip<Group>(i));
  }

  /**
   * One page of a merchant's groups and the total count. Items are read up to the end of the
   * page; the rest of the range is only counted (Select COUNT), not transferred.
   */
  async pageGroups(
    merchantId: string,
    filter: GroupFilter,
    page: Page,
  ): Promise<{ items: Group[]; total: number }> {
    const input = this.groupQuery(merchantId, filter);
    const start = (page.pageNumber - 1) * page.pageSize;
    const end = start + page.pageSize;
    const items: Item[] = [];
    let seen = 0;
    let ExclusiveStartKey: Item | undefined;
    do {
      const counting = seen >= end;
      const out = await this.db.send(
        new QueryCommand({
          ...input,
          ExclusiveStartKey,
          ...(counting ? { Select: 'COUNT' } : { Limit: Math.max(end - seen, 25) }),
        }),
      );
      if (!counting) {
        for (const item of out.Items ?? []) {
          if (seen >= start && seen < end) items.push(item);
          seen++;
        }
      } else {
        seen += out.Count ?? 0;
      }
      ExclusiveStartKey = out.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return { items: items.map((i) => strip<Group>(i)), total: seen };
  }
}

let store: GroupStore | undefined;

/** The container's store, on the configured table. */
export function groupStore(): GroupStore {
  store ??= new GroupStore(ddb(), config().tableName);
  return store;
}

/** The group if it exists and belongs to this merchant; 404 otherwise (no existence leak). */
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
  const payment = await groupStore().getPayment(groupId, paymentId);
  if (!payment || payment.merchantId !== merchantId) throw new PaymentNotFoundError(paymentId);
  return payment;
}

/**
 * Throws the error that explains why a group refused a payment change: 404 when it is not this
 * merchant's, 400 when it is not pending, 503 when it changed back and forth under us.
 */
export async function explainGroupRejection(groupId: string, merchantId: string): Promise<never> {
  const group = await requireGroup(groupId, merchantId);
  assertPaymentsEditable(group);
  if (group.paymentCount >= MAX_PAYMENTS_PER_GROUP) {
    throw new BadRequestError(`a group holds at most ${MAX_PAYMENTS_PER_GROUP} payments`);
  }
  throw new ServiceUnavailableError('the group changed concurrently; retry the request');
}

/** Optimistic-concurrency attempts before a request gives up with 503. */
export const MAX_ATTEMPTS = 5;
export const tooMuchContention = (): never => {
  throw new ServiceUnavailableError('too many concurrent changes to this resource; retry the request');
};
