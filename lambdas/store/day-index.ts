/**
 * A day index: items listed by time without a Scan, on GSI1. Each UTC day of a kind's index is
 * spread over DAY_SHARDS partitions, `<kind>#DAY#<yyyy-mm-dd>#<shard>` (the shard by the item's
 * id), sorted `<ISO time>#<id>`; a window is read from every partition of each of its days, the
 * unsharded `<kind>#DAY#<yyyy-mm-dd>` included (items indexed before the shards, 2026-11-26, still
 * sit there), merged in sort-key order: the order one partition per day used to give.
 *
 * The mechanism only: which items are indexed, under which kind, is their owner's (keys.ts for the
 * service's sales and refunds, the sandbox processor for its ledger: processor/ reads its own day
 * index through this module, the one module of store/ it may import).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { daysBetween } from '#shared/days';
import { shardOf } from '#shared/shards';
import type { Item } from './items';
import { queryOnce, readAll } from './paging';

/**
 * Each day of a day index is spread over this many GSI1 partitions: a day's sales are written at the
 * processor's rate (two index writes a charge, Pending then final: 2,000 a second at 1,000
 * charges/s), and one partition takes 1,000 write units a second (docs/operating.md "The busiest slot").
 */
export const DAY_SHARDS = 8;

/** An item's GSI1 attributes on `kind`'s day index: its time's day and its id's shard. */
export const dayIndexEntry = (kind: string, at: string, id: string) => ({
  gsi1pk: `${kind}#DAY#${at.slice(0, 10)}#${shardOf(id, DAY_SHARDS)}`,
  gsi1sk: `${at}#${id}`,
});

/** A day's partitions to read: its shards, and the unsharded one of the items indexed before them. */
const dayPartitions = (kind: string, day: string): string[] => [
  `${kind}#DAY#${day}`,
  ...Array.from({ length: DAY_SHARDS }, (_, i) => `${kind}#DAY#${day}#${i}`),
];

interface DayWindow {
  /** The window's UTC days run from `since`'s to `until`'s (both included). */
  since: string;
  until: string;
  /** Sort-key bounds, both included (BETWEEN): `since` and `until` unless given. */
  from?: string;
  to?: string;
  /** A filter on the items read (FilterExpression), with its names and values. */
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

/** The Query of one partition's items in the window. */
const partitionQuery = (tableName: string, partition: string, window: DayWindow) => ({
  TableName: tableName,
  IndexName: 'gsi1',
  KeyConditionExpression: 'gsi1pk = :day AND gsi1sk BETWEEN :from AND :to',
  ...(window.filter && { FilterExpression: window.filter.expression }),
  ...(window.filter?.names && { ExpressionAttributeNames: window.filter.names }),
  ExpressionAttributeValues: {
    ...window.filter?.values,
    ':day': partition,
    ':from': window.from ?? window.since,
    ':to': window.to ?? window.until,
  },
});

/** One partition's items in the window, page after page (the whole window: no limit). */
const queryPartition = (
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  window: DayWindow,
): Promise<Item[]> => readAll(db, partitionQuery(tableName, partition, window));

const sortKeyOf = (item: Item) => String(item.gsi1sk);
const bySortKey = (a: Item, b: Item) =>
  sortKeyOf(a) < sortKeyOf(b) ? -1 : sortKeyOf(a) > sortKeyOf(b) ? 1 : 0;

/** The items of `kind`'s day index in `window`, in sort-key order: one day at a time, its partitions at once. */
export async function queryDays(
  db: DynamoDBDocumentClient,
  tableName: string,
  kind: string,
  window: DayWindow,
): Promise<Item[]> {
  const out: Item[] = [];
  for (const day of daysBetween(window.since, window.until)) {
    const parts = await Promise.all(
      dayPartitions(kind, day).map((p) => queryPartition(db, tableName, p, window)),
    );
    out.push(...parts.flat().sort(bySortKey));
  }
  return out;
}

/** What a bounded read of a day index found, and how far it read. */
interface DaysRead {
  /** The items found up to `readThrough` (or the whole window), in sort-key order. */
  items: Item[];
  /**
   * Where the read stopped when `budget` ran out: every item of the window whose sort key is at
   * most this was read (the next read starts here); absent when the whole window was read.
   */
  readThrough?: string;
}

/** A sort key after every entry of the day: a read that finished it goes on from here. */
const endOfDay = (day: string) => `${day}T24`;

/**
 * The items of `kind`'s day index in `window`, as `queryDays`, but evaluating about `budget`
 * entries (a filter's misses count, as DynamoDB counts them; at most two more a partition): the
 * day's partitions are read a page each at a time, each page's Limit the budget left shared among
 * them. When the budget runs out first, the read stops at the last sort key every partition has
 * reached, and answers only the items up to it; a read from there (`from`) goes on past it.
 */
export async function queryDaysBounded(
  db: DynamoDBDocumentClient,
  tableName: string,
  kind: string,
  window: DayWindow,
  budget: number,
): Promise<DaysRead> {
  const out: Item[] = [];
  let evaluated = 0;
  const first = window.from !== undefined && window.from > window.since ? window.from : window.since;
  for (const day of daysBetween(first, window.until)) {
    const reads = dayPartitions(kind, day).map((partition) => ({
      input: partitionQuery(tableName, partition, window),
      start: undefined as Record<string, unknown> | undefined,
      done: false,
    }));
    const found: Item[] = [];
    for (;;) {
      const live = reads.filter((r) => !r.done);
      if (live.length === 0) break;
      if (evaluated >= budget) {
        // Each live partition was read up to its last position: the least of them bounds the read.
        const readThrough = live.map((r) => String(r.start!.gsi1sk)).sort()[0]!;
        out.push(...found.filter((i) => sortKeyOf(i) <= readThrough).sort(bySortKey));
        return { items: out, readThrough };
      }
      // At least 2: a read that goes on from a partition's last position reads that entry again.
      const limit = Math.max(2, Math.ceil((budget - evaluated) / live.length));
      const pages = await Promise.all(live.map((r) => queryOnce(db, { ...r.input, Limit: limit }, r.start)));
      pages.forEach((page, i) => {
        const read = live[i]!;
        evaluated += page.ScannedCount ?? page.Items?.length ?? 0;
        found.push(...(page.Items ?? []));
        read.start = page.LastEvaluatedKey;
        read.done = page.LastEvaluatedKey === undefined;
      });
    }
    out.push(...found.sort(bySortKey));
    if (evaluated >= budget && day < window.until.slice(0, 10))
      return { items: out, readThrough: endOfDay(day) };
  }
  return { items: out };
}
