/**
 * Reading a day index (keys.dayIndex): every partition of each UTC day of a window (its shards and
 * the unsharded one of older items), page after page, merged into one list in sort-key order
 * (`<time>#<id>`), the order one partition per day used to give.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { daysBetween } from './days';
import { queryAll } from './ddb';
import { keys, type DayKind } from './keys';

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

type Item = Record<string, unknown>;

/** One partition's items in the window, page after page. */
const queryPartition = (
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  window: DayWindow,
) =>
  queryAll(db, {
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

/** The items of `kind`'s day index in `window`, in sort-key order: one day at a time, its partitions at once. */
export async function queryDays(
  db: DynamoDBDocumentClient,
  tableName: string,
  kind: DayKind,
  window: DayWindow,
): Promise<Item[]> {
  const out: Item[] = [];
  for (const day of daysBetween(window.since, window.until)) {
    const parts = await Promise.all(
      keys.dayPartitions(kind, day).map((p) => queryPartition(db, tableName, p, window)),
    );
    const sort = (item: Item) => String(item.gsi1sk);
    out.push(...parts.flat().sort((a, b) => (sort(a) < sort(b) ? -1 : sort(a) > sort(b) ? 1 : 0)));
  }
  return out;
}
