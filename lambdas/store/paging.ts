/**
 * Paging through a Query: numbered pages with a total (the list endpoints), cursor pages
 * (the processing steps) and the opaque page tokens of the payment list. Generic over the query, so every list and the bench page alike.
 */
import { createHash } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './items';

export interface Page {
  pageNumber: number;
  pageSize: number;
}

/** Smallest Limit of a page read: tiny pages would cost a round trip per item. */
const MIN_READ = 25;
/**
 * Largest Limit of one read: a page far past the end (pageNumber × pageSize in the billions) must
 * not ask DynamoDB for a Limit it refuses (it takes a 32-bit integer); DynamoDB returns at most
 * 1 MB per read anyway.
 */
const MAX_READ = 10_000;

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
        ...(counting ? { Select: 'COUNT' } : { Limit: Math.min(Math.max(end - seen, MIN_READ), MAX_READ) }),
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

/** Where a token page starts: after `after` (a sort-key id), `offset` items in, of `total`. */
interface PageCursor {
  after: string;
  offset: number;
  total: number;
  pageSize: number;
}

const tokenDigest = (payload: string, scope: string): string =>
  createHash('sha256').update(`${scope}\n${payload}`).digest('base64url').slice(0, 22);

/**
 * An opaque page token: the cursor as base64url JSON and a digest of it with the scope (the
 * group), so an altered token, or one of another group, is refused. A digest, not a signature:
 * the cursor only names a position inside the scope's own partition, which the caller may read
 * anyway, so a forged position could only page oddly, never read anything else.
 */
export function encodePageToken(cursor: PageCursor, scope: string): string {
  const payload = Buffer.from(
    JSON.stringify([cursor.after, cursor.offset, cursor.total, cursor.pageSize]),
  ).toString('base64url');
  return `${payload}.${tokenDigest(payload, scope)}`;
}

/** The cursor of a token made for `scope`, or undefined for anything else. */
export function decodePageToken(token: string, scope: string): PageCursor | undefined {
  const [payload, digest, extra] = token.split('.');
  if (!payload || !digest || extra !== undefined || tokenDigest(payload, scope) !== digest) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [after, offset, total, pageSize] = value as unknown[];
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (typeof after !== 'string' || !whole(offset) || !whole(total) || !whole(pageSize) || pageSize < 1) {
    return undefined;
  }
  return { after, offset, total, pageSize };
}
