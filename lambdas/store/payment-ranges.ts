/**
 * A group's payments as key ranges, for processing them in parallel (the state machine's Map over
 * ranges; docs/architecture.md "Processing").
 *
 * Payments are items of their group's partition, sort key `PAYMENT#<paymentId>`, and paymentIds
 * are UUIDv7 made by the service: they start with their creation time, so a group's ids crowd
 * into a thin slice of the id space, denser where a bulk create wrote thousands in a second.
 * Ranges are therefore cut at real payments' keys, every `size` payments not deleted, not by
 * dividing the id space. Whatever the cuts, the ranges cover the whole prefix: the first starts
 * before the first key, the last has no end, and each range starts exactly after the key the
 * previous one ends on (inclusive), so no payment is in two ranges and none in none.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '#domain/groups';
import { keys } from './keys';
import { containerStore, strip } from './items';
import { queryOnce, queryPages } from './paging';

/** The cursor of a range after `paymentId`: the batch that follows starts with the payment after it. */
export const cursorAfter = (groupId: string, paymentId: string): string =>
  keys.payment(groupId, paymentId).sk;

interface PaymentRangeStore {
  /**
   * The sort keys that cut the group's payments into ranges of `size` payments not deleted (and
   * any deleted ones among them): the key of every `size`-th such payment, at most `cuts` of them,
   * fewer when the group is smaller.
   */
  cutPoints(groupId: string, size: number, cuts: number): Promise<string[]>;
  /**
   * Up to `limit` payments not deleted after `cursor` (a sort key; null: from the first) up to and
   * including `upTo` (null: to the last), with the deleted ones among them (up to
   * DELETED_READ_PER_PLACE for each of `limit`), and the cursor to continue from (null when the
   * range is done).
   */
  paymentsIn(
    groupId: string,
    cursor: string | null,
    upTo: string | null,
    limit: number,
  ): Promise<{ payments: Payment[]; cursor: string | null }>;
}

/**
 * Deleted payments a batch reads past, at most, for each payment of its size: a deleted one is only
 * counted (`skipped`), so a group many of whose payments were deleted takes about as many batches,
 * tasks and history events as its live payments need (a batch of 250 reads at most 2,250 items).
 */
const DELETED_READ_PER_PLACE = 8;

export class DynamoPaymentRangeStore implements PaymentRangeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Reads the partition's payment keys (each page as much as DynamoDB gives: 1 MB of items, their
   * keys and flags answered) and cuts after every `size`-th payment that is not deleted: the plan's
   * size counts those (`paymentCount`), so each range holds its share of the payments to charge
   * wherever the deleted ones lie. Eventually consistent: the group is processing, its payments no
   * longer change, and any cuts are correct (only the balance of the ranges depends on them).
   */
  async cutPoints(groupId: string, size: number, cuts: number): Promise<string[]> {
    const found: string[] = [];
    if (cuts <= 0) return found;
    let counted = 0;
    const pages = queryPages(this.db, () => ({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':p': keys.paymentPrefix },
      ProjectionExpression: '#sk, #entity, #deleted',
      ExpressionAttributeNames: { '#sk': 'sk', '#entity': 'entity', '#deleted': 'deleted' },
    }));
    // The last range takes the rest.
    for await (const out of pages) {
      for (const item of out.Items ?? []) {
        if (item.entity !== 'payment' || item.deleted === true || ++counted < size) continue;
        found.push(String(item.sk));
        counted = 0;
        if (found.length === cuts) return found;
      }
    }
    return found;
  }

  async paymentsIn(
    groupId: string,
    cursor: string | null,
    upTo: string | null,
    limit: number,
  ): Promise<{ payments: Payment[]; cursor: string | null }> {
    const { pk } = keys.group(groupId);
    const payments: Payment[] = [];
    let live = 0;
    let at = cursor;
    // Pages of `limit` items until `limit` payments not deleted are read, the range ends, or the
    // read budget is spent: a batch holds all the deleted payments it read past.
    for (let read = 0; read < limit * (1 + DELETED_READ_PER_PLACE);) {
      const out = await queryOnce(
        this.db,
        {
          TableName: this.tableName,
          KeyConditionExpression: upTo
            ? 'pk = :pk AND sk BETWEEN :p AND :upTo'
            : 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': pk, ':p': keys.paymentPrefix, ...(upTo && { ':upTo': upTo }) },
          Limit: limit,
          ConsistentRead: true,
        },
        at ? { pk, sk: at } : undefined,
      );
      const items = out.Items ?? [];
      read += items.length;
      at = (out.LastEvaluatedKey?.sk as string | undefined) ?? null;
      for (const [i, item] of items.entries()) {
        if (item.entity !== 'payment') continue;
        const payment = strip<Payment>(item);
        payments.push(payment);
        if (!payment.deleted && ++live === limit) {
          // The batch is full: the next one starts after this payment (read past it or not).
          if (i < items.length - 1 || at !== null) at = String(item.sk);
          break;
        }
      }
      if (at === null || at === upTo || live === limit) break;
    }
    // A batch ending on the range's last key is the range's end: no empty read after it.
    return { payments, cursor: at === null || at === upTo ? null : at };
  }
}

/** The container's store, on the configured table (made on first use). */
export const paymentRangeStore: () => PaymentRangeStore =
  /* @__PURE__ */ containerStore(DynamoPaymentRangeStore);
