/**
 * Helpers shared by the stores: stripping key attributes, batch reads and writes (paging is
 * paging.ts).
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { withBackoff, type BackoffDelays } from '#shared/backoff';
import { config } from '#shared/config';
import { ddb, isConditionFailure, isConflict } from '#shared/ddb';
import { clock } from '#shared/clock';

export type Item = Record<string, unknown>;

const KEY_ATTRIBUTES = new Set(['pk', 'sk', 'entity', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'expiresAt']);

/** The record without its key attributes and entity marker. */
export function strip<T>(item: Item): T {
  // Copied without them rather than deleted from a copy: `delete` turns an object into a slow
  // dictionary, and every item of a page is read again to build its answer.
  const copy: Item = {};
  for (const k of Object.keys(item)) {
    // Defined, not assigned: an attribute named `__proto__` stays a plain key, as in a spread.
    if (k === '__proto__')
      Object.defineProperty(copy, k, {
        value: item[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else if (!KEY_ATTRIBUTES.has(k)) copy[k] = item[k];
  }
  return copy as T;
}

/** Idempotency records and duplicate guards outlive their use by a day (TTL). */
export const RECORD_TTL_SECONDS = 24 * 3600;

/** A date as the epoch seconds of a TTL attribute. */
export const epoch = (d: Date): number => Math.floor(d.getTime() / 1000);

/** An update that its condition may refuse: true when applied, false when refused. */
export async function updateIf(db: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<boolean> {
  try {
    await db.send(new UpdateCommand(input));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Sends a transaction again, a few times after short jittered pauses, while DynamoDB cancels it
 * because another transaction held one of its items (a counter many writes share: a merchant's
 * return-rate counter of a day): a cancelled transaction changed nothing. Any other error, a
 * failed condition included, is thrown at once.
 */
export const sendThroughConflicts = <T>(send: () => Promise<T>): Promise<T> =>
  withBackoff(send, { attempts: 5, firstMs: 10, maxMs: 200, jitter: 'half', retryable: isConflict });

/**
 * A transaction is at most 4 MB (DynamoDB refuses more as invalid, not transient): a create whose
 * items pass this as JSON is written ahead, however few. JSON is at most a few bytes an attribute
 * under DynamoDB's own measure (numbers, booleans): a quarter's margin covers it.
 */
export const MAX_TRANSACTION_JSON_BYTES = 3 * 1024 * 1024;

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
/**
 * Batches in flight at once: enough to keep one partition at DynamoDB's ~1,000 writes/s (a batch
 * takes ~10-30 ms) without flooding it with throttled requests.
 */
const BATCH_CONCURRENCY = 8;
/** How long a batch write keeps retrying unprocessed (throttled) items before it fails. */
export const BATCH_WRITE_BUDGET_MS = 20_000;
/** Pauses between two retries of unprocessed items: from 20 ms, at most 500 ms, jittered. */
const WRITE_BACKOFF: BackoffDelays = { firstMs: 20, maxMs: 500, jitter: 'half' };

class UnprocessedItemsError extends Error {
  constructor() {
    super('batch write: unprocessed items after retries');
  }
}

/**
 * Writes (puts or deletes) every request, 25 a batch, several batches in flight, retrying
 * unprocessed items with capped, jittered backoff until `budgetMs` has passed. The first failure
 * stops every worker from taking another batch (batches in flight finish) and is thrown. Not
 * atomic: callers make the result reachable only once all of it is written. `beforeSend` runs
 * before every batch is sent (a retry's too): what it throws is such a failure (a written-ahead
 * create's writer past its budget).
 */
export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  tableName: string,
  requests: Item[],
  budgetMs = BATCH_WRITE_BUDGET_MS,
  beforeSend?: () => void,
): Promise<void> {
  const deadline = clock.nowMs() + budgetMs;
  const chunks: Item[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_SIZE) chunks.push(requests.slice(i, i + BATCH_SIZE));
  let next = 0;
  let failed = false;
  const writeChunk = async (chunk: Item[]) => {
    let pending = chunk;
    await withBackoff(
      async () => {
        if (failed) return;
        beforeSend?.();
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
        pending = (out.UnprocessedItems?.[tableName] ?? []) as Item[];
        if (pending.length > 0) throw new UnprocessedItemsError();
      },
      {
        ...WRITE_BACKOFF,
        attempts: Infinity,
        deadline,
        retryable: (e) => e instanceof UnprocessedItemsError,
      },
    );
  };
  const worker = async () => {
    while (!failed && next < chunks.length) {
      try {
        await writeChunk(chunks[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(BATCH_CONCURRENCY, chunks.length) }, worker),
  );
  // Every worker has stopped: the caller may now undo what was written.
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/**
 * An UpdateExpression that SETs every defined field of `fields` (but `skip`), and REMOVEs the
 * undefined ones named in `clear`.
 */
export function setExpression(fields: Item, skip: string[], clear: ReadonlySet<string> = new Set()) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (skip.includes(name)) continue;
    if (value === undefined) {
      if (clear.has(name)) {
        names[`#${name}`] = name;
        removes.push(`#${name}`);
      }
      continue;
    }
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The container's instance of a store, made on first use on the configured table: one client
 * and one store per Lambda container, reused across invocations.
 */
export function containerStore<T>(make: new (db: DynamoDBDocumentClient, tableName: string) => T): () => T {
  let store: T | undefined;
  return () => (store ??= new make(ddb(), config().tableName));
}

export class IncompleteReadError extends Error {
  constructor() {
    super('batch read: unprocessed keys after retries');
    this.name = 'IncompleteReadError';
  }
}

/** BatchGet in chunks of 100, asking again (with backoff, bounded) for unprocessed keys. */
export async function batchGet(
  db: DynamoDBDocumentClient,
  tableName: string,
  keyList: Item[],
  projection?: string,
  /** The projection's `#name` placeholders (reserved words such as `status`). */
  names?: Record<string, string>,
): Promise<Item[]> {
  const found: Item[] = [];
  for (let i = 0; i < keyList.length; i += 100) {
    let request:
      | Record<
          string,
          {
            Keys: Item[];
            ProjectionExpression?: string;
            ExpressionAttributeNames?: Record<string, string>;
            ConsistentRead: boolean;
          }
        >
      | undefined = {
      [tableName]: {
        Keys: keyList.slice(i, i + 100),
        // What a write decides on (a payment's method, a payor's e-mail) is read as it is now.
        ConsistentRead: true,
        ...(projection !== undefined && { ProjectionExpression: projection }),
        ...(names !== undefined && { ExpressionAttributeNames: names }),
      },
    };
    await withBackoff(
      async () => {
        const out = await db.send(new BatchGetCommand({ RequestItems: request! }));
        found.push(...(out.Responses?.[tableName] ?? []));
        request = out.UnprocessedKeys as typeof request;
        if (request && Object.keys(request).length > 0) throw new IncompleteReadError();
      },
      { attempts: 9, firstMs: 20, retryable: (e) => e instanceof IncompleteReadError },
    );
  }
  return found;
}
