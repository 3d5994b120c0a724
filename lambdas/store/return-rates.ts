/**
 * Return-rate counters and state in DynamoDB (domain/return-rates.ts; docs/architecture.md
 * "Return rates"):
 *
 * - `RETURNRATES#<mid>` / `DAY#<yyyy-mm-dd>#<shard>`: a merchant's bank debits of one UTC day and
 *   their returns by category (`debits`, `nsf`, `administrative`, `unauthorized`, `other`), kept in
 *   RETURN_RATE_SHARDS items per day (the debit's transaction id picks one) so that a slot of many
 *   debits of one merchant does not make one item hot. They move only inside the transaction of
 *   the change they count: a debit's approval (+1 debit) and its void (-1) in store/transactions.ts,
 *   a return in the transaction that records it (`returnCountItems`). TTL after the window.
 * - `RETURNRATES#<mid>` / `STATE`: the status last announced (`merchant.return_rates_changed`) and
 *   the merchant's event count; on GSI1 `RETURNRATES#ATTENTION` while that status is `alert` or
 *   `over` (the metric the alarm watches counts them).
 * - `RETURNRATES#CHANGED` / `<mid>`: a merchant whose counts a return moved since the job last
 *   looked (written by `returnCountItems`); the job recomputes it and removes the mark.
 * - `RETURNRATES` / `CURSOR`: the job's daily pass over the merchant list: the day and the last
 *   merchant done.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isCard, type AccountType } from '#domain/cards';
import type { ServiceEvent } from '#domain/events';
import {
  RETURN_CATEGORIES,
  RETURN_RATE_WINDOW_DAYS,
  needsAttention,
  utcDay,
  type DayCounts,
  type ReturnCategory,
  type ReturnRates,
  type ReturnRateStatus,
} from '#domain/return-rates';
import { shardOf } from '#shared/shards';
import { keys } from './keys';
import { eventPut, sequenced, writeAnnounced } from './events';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, epoch } from './items';
import { queryPages, readAll } from './paging';

/** Counter items per merchant and day. */
const RETURN_RATE_SHARDS = 16;

const partition = (merchantId: string) => `RETURNRATES#${merchantId}`;
const counterKey = (merchantId: string, day: string, transactionId: string) => ({
  pk: partition(merchantId),
  sk: `DAY#${day}#${String(shardOf(transactionId, RETURN_RATE_SHARDS)).padStart(2, '0')}`,
});
const stateKey = (merchantId: string) => ({ pk: partition(merchantId), sk: 'STATE' });
const CHANGED = 'RETURNRATES#CHANGED';
const changedKey = (merchantId: string) => ({ pk: CHANGED, sk: merchantId });
const ATTENTION = 'RETURNRATES#ATTENTION';
const CURSOR_KEY = { pk: 'RETURNRATES', sk: 'CURSOR' };

/** A counter outlives its day by the window and a day (TTL): it can no longer count by then. */
const counterExpiry = (day: string): number =>
  epoch(new Date(Date.parse(day) + (RETURN_RATE_WINDOW_DAYS + 2) * 86_400_000));

/** An approved bank debit (not a card charge) is what Nacha's return rates count. */
export const isBankDebit = (txn: { accountType?: AccountType }): boolean =>
  txn.accountType !== undefined && !isCard(txn.accountType);

/** What a counter needs of a bank debit: its merchant, its id (the shard) and its date. */
interface CountedDebit {
  merchantId: string;
  transactionId: string;
  /** When the debit was approved (the sale's `processedAt`): its UTC day is the counter's. */
  processedAt: string;
}

/**
 * The transaction item that counts a debit's approval (`+1`) or its void (`-1`): an Update of its
 * day's counter. Only inside the transaction of that change, which holds once.
 */
export function debitCountItem(tableName: string, debit: CountedDebit, delta: 1 | -1): object {
  const day = utcDay(debit.processedAt);
  return {
    Update: {
      TableName: tableName,
      Key: counterKey(debit.merchantId, day, debit.transactionId),
      UpdateExpression: 'ADD debits :d SET entity = :e, #day = :day, expiresAt = :x',
      ExpressionAttributeNames: { '#day': 'day' },
      ExpressionAttributeValues: {
        ':d': delta,
        ':e': 'return-rate-day',
        ':day': day,
        ':x': counterExpiry(day),
      },
    },
  };
}

/**
 * The transaction items that count a return of `debit` (the approved bank debit it returns) in
 * `category`: the counter of the debit's day (not the return's: Nacha counts a return against the
 * debits of its debit's period) and the merchant's mark for the return-rates job, which recomputes
 * its status within the hour and announces a change. Add them to the one transaction that records
 * the return (and marks its notice applied), so that a return is counted exactly once.
 */
export function returnCountItems(
  tableName: string,
  debit: CountedDebit,
  category: ReturnCategory,
  now: Date,
): object[] {
  const day = utcDay(debit.processedAt);
  return [
    {
      Update: {
        TableName: tableName,
        Key: counterKey(debit.merchantId, day, debit.transactionId),
        UpdateExpression: 'ADD #kind :one SET entity = :e, #day = :day, expiresAt = :x',
        ExpressionAttributeNames: { '#kind': category, '#day': 'day' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':e': 'return-rate-day',
          ':day': day,
          ':x': counterExpiry(day),
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...changedKey(debit.merchantId), entity: 'return-rate-changed', at: now.toISOString() },
      },
    },
  ];
}

/** The status last announced for a merchant (absent: `ok`, never announced). */
interface ReturnRateState {
  status: ReturnRateStatus;
  eventSeq?: number;
  changedAt?: string;
}

/** Where the job's daily pass stands: the day, and the last merchant done (absent: none yet). */
interface ReturnRateCursor {
  day: string;
  after?: string;
  done?: boolean;
}

type Item = Record<string, unknown>;

const dayCounts = (item: Item): DayCounts => ({
  day: item.day as string,
  debits: (item.debits as number | undefined) ?? 0,
  returns: Object.fromEntries(
    RETURN_CATEGORIES.filter((c) => item[c] !== undefined).map((c) => [c, item[c] as number]),
  ),
});

class ReturnRateStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The merchant's counters of the days from `since` to `until` (both included), every shard. */
  async days(merchantId: string, since: string, until: string): Promise<DayCounts[]> {
    const items = await readAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': partition(merchantId),
        ':from': `DAY#${since}`,
        ':to': `DAY#${until}#~`,
      },
      ConsistentRead: true,
    });
    return items.map(dayCounts);
  }

  async state(merchantId: string): Promise<ReturnRateState | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: stateKey(merchantId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return {
      status: Item.status as ReturnRateStatus,
      ...(Item.eventSeq !== undefined && { eventSeq: Item.eventSeq as number }),
      ...(Item.changedAt !== undefined && { changedAt: Item.changedAt as string }),
    };
  }

  /**
   * Records a new status and its event in one transaction, if the state is still `seen` (its event
   * count unchanged). False when another run changed it first.
   */
  async changeStatus(
    merchantId: string,
    seen: ReturnRateState | undefined,
    rates: ReturnRates,
    event: ServiceEvent,
    now: Date,
  ): Promise<boolean> {
    const seq = sequenced(seen?.eventSeq);
    const attention = needsAttention(rates.status);
    const state = {
      Put: {
        TableName: this.tableName,
        Item: {
          ...stateKey(merchantId),
          entity: 'return-rate-state',
          ...(attention && { gsi1pk: ATTENTION, gsi1sk: merchantId }),
          merchantId,
          status: rates.status,
          rates,
          changedAt: now.toISOString(),
          eventSeq: seq.values[':nextSeq'],
        },
        ConditionExpression: seq.condition,
        ...(Object.keys(seq.conditionValues).length > 0 && {
          ExpressionAttributeValues: seq.conditionValues,
        }),
      },
    };
    // Refused at the state (item 0): another run changed it first.
    return writeAnnounced(this.db, [state, eventPut(this.tableName, event)], 0);
  }

  /** Merchants whose counts a return moved since the job last looked (mark time by merchant). */
  async changed(limit: number): Promise<{ merchantId: string; at: string }[]> {
    const items = await readAll(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': CHANGED },
        ConsistentRead: true,
      },
      limit,
    );
    return items.map((i) => ({ merchantId: i.sk as string, at: i.at as string }));
  }

  /** Removes a merchant's mark, unless a later return wrote it again meanwhile. */
  async clearChanged(merchantId: string, at: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: changedKey(merchantId),
          ConditionExpression: '#at = :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** Up to `limit` registered merchants (11-digit MIDs) after `after`, in order. */
  async merchants(after: string | undefined, limit: number): Promise<string[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: after === undefined ? 'gsi1pk = :m' : 'gsi1pk = :m AND gsi1sk > :after',
        ExpressionAttributeValues: {
          ':m': keys.merchantList,
          ...(after !== undefined && { ':after': after }),
        },
        ProjectionExpression: 'merchantId',
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((i) => i.merchantId as string);
  }

  /** How many merchants are at `alert` or `over` (as last recomputed). */
  async attentionCount(): Promise<number> {
    let total = 0;
    for await (const out of queryPages(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :a',
      ExpressionAttributeValues: { ':a': ATTENTION },
      Select: 'COUNT',
    }))
      total += out.Count ?? 0;
    return total;
  }

  async cursor(): Promise<ReturnRateCursor | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: CURSOR_KEY, ConsistentRead: true }),
    );
    return Item
      ? {
          day: Item.day as string,
          ...(Item.after !== undefined && { after: Item.after as string }),
          ...(Item.done === true && { done: true }),
        }
      : undefined;
  }

  async advance(cursor: ReturnRateCursor): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...CURSOR_KEY, entity: 'return-rate-cursor', ...cursor },
      }),
    );
  }
}

export const returnRateStore = /* @__PURE__ */ containerStore(ReturnRateStore);
