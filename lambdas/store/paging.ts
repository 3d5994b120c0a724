/**
 * Paging through a Query: numbered pages with a total (the list endpoints) and cursor pages
 * (the processing steps). Generic over the query, so every list and the bench page alike.
 */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './items';

export interface Page {
  pageNumber: number;
  pageSize: number;
}

/** Smallest Limit of a page read: tiny pages would cost a round trip per item. */
const MIN_READ = 25;

/**
 * One numbered page of a query's items and the total count. Items are read up to the end of
 * the page; the rest of the range is only counted (Select COUNT), not transferred.
 */
export async function readPage(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  page: Page,
): Promise<{ items: Item[]; total: number }> {
  const start = (page.pageNumber - 1) * page.pageSize;
  const end = start + page.pageSize;
  const items: Item[] = [];
  let seen = 0;
  let ExclusiveStartKey: Item | undefined;
  do {
    const counting = seen >= end;
    const out = await db.send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey,
        ...(counting ? { Select: 'COUNT' } : { Limit: Math.max(end - seen, MIN_READ) }),
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
  return { items, total: seen };
}

/**
 * Up to `limit` items of a partition after the cursor (a sort key; null: from the first item
 * with `prefix`), and the cursor to continue from (null at the end).
 */
export async function readAfter(
  db: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  prefix: string,
  cursor: string | null,
  limit: number,
): Promise<{ items: Item[]; cursor: string | null }> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: cursor ? 'pk = :pk AND sk > :c' : 'pk = :pk AND begins_with(sk, :c)',
      ExpressionAttributeValues: { ':pk': pk, ':c': cursor ?? prefix },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const last = out.LastEvaluatedKey?.sk as string | undefined;
  return { items: out.Items ?? [], cursor: last ?? null };
}
