/**
 * Paging: every read of the table that may span more than one request goes through here (the one
 * loop over LastEvaluatedKey is `pagesOf`; no other file writes an ExclusiveStartKey loop), and
 * takes its limits from read-limits.ts.
 *
 * - `readAll`: every item a Query matches (or the first `max`);
 * - `queryPages` / `scanPages`: page after page, for a reader that stops early, sizes each request
 *   to what it still needs, or works through a page before reading the next;
 * - `queryOnce`: one request from a position, for a reader that keeps its own cursor;
 * - `readPage`: one numbered page of a query and the total count (the list endpoints);
 * - `readAfter`: up to `limit` items of a partition after a cursor (the processing steps);
 * - `encodePageToken` / `decodePageToken`: the opaque page tokens of the lists.
 */
import { createHash } from 'node:crypto';
import {
  QueryCommand,
  ScanCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type QueryCommandOutput,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { Item } from './items';
import { READ_LIMITS } from './read-limits';

export interface Page {
  pageNumber: number;
  pageSize: number;
}

/** A read's position: the key it stopped at (LastEvaluatedKey), where the next read starts. */
type StartKey = Record<string, unknown>;

/**
 * Every page of a read (a Query or a Scan), in order: the one loop over LastEvaluatedKey.
 * `read` makes one request starting at `start` (its ExclusiveStartKey; undefined: the first); the
 * pages end after the read's last one, or when the caller leaves the loop.
 */
async function* pagesOf<P extends { LastEvaluatedKey?: StartKey }>(
  read: (start: StartKey | undefined) => Promise<P>,
  start?: StartKey,
): AsyncGenerator<P> {
  let next = start;
  do {
    const page = await read(next);
    yield page;
    next = page.LastEvaluatedKey;
  } while (next);
}

/**
 * The pages of a Query, from `start` (a LastEvaluatedKey, or a position the caller made) on.
 * `input` is a function when each request depends on what was read so far (its Limit, the rest a
 * page still needs): it is called right before each request. Leave the loop to stop.
 */
export function queryPages(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput | (() => QueryCommandInput),
  start?: Item,
): AsyncGenerator<QueryCommandOutput> {
  const next = typeof input === 'function' ? input : () => input;
  return pagesOf((from) => queryOnce(db, next(), from), start);
}

/**
 * One request of a Query from `start`: a page for a reader that keeps its own position (a cursor
 * it continues from on its next call) rather than reading on.
 */
export const queryOnce = (
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  start?: StartKey,
): Promise<QueryCommandOutput> =>
  db.send(new QueryCommand({ ...input, ...(start && { ExclusiveStartKey: start }) }));

/**
 * The pages of a Scan: the operator's tools and backfills only (they look for items no index
 * lists); a function reads by key.
 */
export function scanPages(
  db: DynamoDBDocumentClient,
  input: ScanCommandInput,
): AsyncGenerator<ScanCommandOutput> {
  return pagesOf((start) =>
    db.send(new ScanCommand({ ...input, ...(start && { ExclusiveStartKey: start }) })),
  );
}

/**
 * Every item a Query matches, page after page; with `max`, it stops once it has that many (each
 * request still asks for the input's own Limit, if any).
 */
export async function readAll(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  max = Number.POSITIVE_INFINITY,
): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(db, input)) {
    items.push(...(page.Items ?? []));
    if (items.length >= max) break;
  }
  return items.slice(0, max);
}

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
  // Past the page's end the rest is only counted: `seen` decides each next request.
  let counting = false;
  const request = (): QueryCommandInput => {
    counting = seen >= end;
    return {
      ...input,
      ...(counting
        ? { Select: 'COUNT' }
        : { Limit: Math.min(Math.max(end - seen, READ_LIMITS.pageMin), READ_LIMITS.pageMax) }),
    };
  };
  for await (const out of queryPages(db, request)) {
    if (!counting) {
      for (const item of out.Items ?? []) {
        if (seen >= start && seen < end) items.push(item);
        seen++;
      }
    } else {
      seen += out.Count ?? 0;
    }
  }
  return { items, total: seen };
}

/**
 * Up to `limit` items of a partition after the cursor (a sort key; null: from the first item
 * with `prefix`), and the cursor to continue from (null at the end). One request: the caller
 * continues from the cursor.
 */
export async function readAfter(
  db: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  prefix: string,
  cursor: string | null,
  limit: number,
): Promise<{ items: Item[]; cursor: string | null }> {
  const out = await queryOnce(db, {
    TableName: tableName,
    KeyConditionExpression: cursor ? 'pk = :pk AND sk > :c' : 'pk = :pk AND begins_with(sk, :c)',
    ExpressionAttributeValues: { ':pk': pk, ':c': cursor ?? prefix },
    Limit: limit,
    ConsistentRead: true,
  });
  const last = out.LastEvaluatedKey?.sk as string | undefined;
  return { items: out.Items ?? [], cursor: last ?? null };
}

/**
 * readAfter read on past DynamoDB's 1 MB a request, up to `limit` items in all; undefined once
 * more than `maxBytes` of them (as JSON) were read: an answer holding them could not be sent.
 */
export async function readOn(
  db: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  prefix: string,
  after: string | null,
  limit: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Item[] | undefined> {
  const items: Item[] = [];
  let bytes = 0;
  let cursor = after;
  do {
    const page = await readAfter(db, tableName, pk, prefix, cursor, limit - items.length);
    for (const item of page.items) bytes += Buffer.byteLength(JSON.stringify(item));
    if (bytes > maxBytes) return undefined;
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== null && items.length < limit);
  return items;
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
  // No list makes a token without a position: an empty one is a forged token (it would reach
  // DynamoDB as an empty key, which it refuses).
  if (
    typeof after !== 'string' ||
    after === '' ||
    !whole(offset) ||
    !whole(total) ||
    !whole(pageSize) ||
    pageSize < 1
  ) {
    return undefined;
  }
  return { after, offset, total, pageSize };
}
