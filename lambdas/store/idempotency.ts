/**
 * Idempotency records in DynamoDB: `IDEM#mid#scope#=<digest>` is claimed with
 * attribute_not_exists, the digest being the keyed hash of the request's key (shared/keyed-hash.ts):
 * the key as written is never stored. It holds the request's keyed hash, the id of the resource it
 * creates (fixed at the first claim, so a retry after a crash resumes the same sale or refund) and,
 * when done, the response to replay (gzipped above COMPRESS_ABOVE_BYTES, so that a 1,000-payment
 * void-or-refund fits an item).
 *
 * Records made before keys were hashed are kept by the key as written (`IDEM#mid#scope#<key>`)
 * until their TTL removes them: a claim looks there first, and a key found there is answered from
 * that record (replayed, refused, resumed) as before, never run again: a missed replay would be a
 * second charge. No record is made there any more.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { idempotencyKeyDigest } from '#shared/keyed-hash';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, epoch, RECORD_TTL_SECONDS, updateIf } from './items';

/** A claimed-but-unfinished request may be resumed by a retry after this long. */
const IDEMPOTENCY_LEASE_MS = 30_000;

/** Answers longer than this (as JSON) are kept gzipped: an item holds at most 400 KB. */
const COMPRESS_ABOVE_BYTES = 32 * 1024;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Claim =
  | { kind: 'new'; resourceId: string }
  | { kind: 'resume'; resourceId: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in-progress'; leaseUntil: number };

export interface IdempotencyRef {
  merchantId: string;
  scope: string;
  key: string;
}

/**
 * A request's hashes: `keyed` is written and matched; a record that holds a plain SHA-256 (64 hex
 * digits: made before request hashes were keyed) is matched by `unkeyed` until its TTL removes it.
 */
export interface RequestHashes {
  keyed: string;
  unkeyed: () => string;
}

const UNKEYED_HASH = /^[0-9a-f]{64}$/;

/** Whether a record was made for this request, by the hash it holds. */
function sameRequest(stored: unknown, request: RequestHashes): boolean {
  if (stored === request.keyed) return true;
  return typeof stored === 'string' && UNKEYED_HASH.test(stored) && stored === request.unkeyed();
}

export interface IdempotencyStore {
  /** Claims a key for a request: new, resumed after an expired lease, replayed, or refused. */
  claim(ref: IdempotencyRef, request: RequestHashes, newResourceId: string, now: Date): Promise<Claim>;
  /** Stores the response that repeats of the request replay. */
  complete(ref: IdempotencyRef, response: StoredResponse): Promise<void>;
  /** Gives a claim up (the request failed before doing anything): the key may be used afresh. */
  release(ref: IdempotencyRef): Promise<void>;
  /**
   * Ends a resumed claim's lease (its request was refused, but its first attempt may have
   * written): the key stays the request's, and the next retry resumes it at once.
   */
  endLease(ref: IdempotencyRef): Promise<void>;
}

/** A record past its 24 hours (DynamoDB's TTL may take days to remove it): the key is free. */
const expired = (item: Record<string, unknown>, now: Date): boolean =>
  typeof item.expiresAt === 'number' && item.expiresAt <= epoch(now);

type Key = { pk: string; sk: string };

class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The record's key: by the key's keyed hash. */
  private async hashed(ref: IdempotencyRef): Promise<Key> {
    return keys.idempotency(
      ref.merchantId,
      ref.scope,
      await idempotencyKeyDigest(ref.merchantId, ref.scope, ref.key),
    );
  }

  private async read(Key: Key): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return Item;
  }

  async claim(ref: IdempotencyRef, request: RequestHashes, newResourceId: string, now: Date): Promise<Claim> {
    const asWritten = keys.idempotencyAsWritten(ref.merchantId, ref.scope, ref.key);
    const old = await this.read(asWritten);
    if (old && !expired(old, now)) return this.claimExisting(asWritten, old, request, now);
    const Key = await this.hashed(ref);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Key,
            entity: 'idempotency',
            requestHash: request.keyed,
            resourceId: newResourceId,
            state: 'in-progress',
            leaseUntil: now.getTime() + IDEMPOTENCY_LEASE_MS,
            expiresAt: epoch(now) + RECORD_TTL_SECONDS,
          },
          // A record past its 24 hours is replaced: keys live 24 hours.
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
          ExpressionAttributeValues: { ':now': epoch(now) },
        }),
      );
      return { kind: 'new', resourceId: newResourceId };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const Item = await this.read(Key);
    if (!Item) return this.claim(ref, request, newResourceId, now);
    return this.claimExisting(Key, Item, request, now);
  }

  /** A claim of a key that has a record: replayed, refused, still running, or resumed. */
  private async claimExisting(
    Key: Key,
    Item: Record<string, unknown>,
    request: RequestHashes,
    now: Date,
  ): Promise<Claim> {
    if (!sameRequest(Item.requestHash, request)) return { kind: 'mismatch' };
    if (Item.state === 'done') return { kind: 'replay', response: storedResponse(Item) };
    const leaseUntil = Item.leaseUntil as number;
    if (leaseUntil > now.getTime()) return { kind: 'in-progress', leaseUntil };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression: 'SET leaseUntil = :next',
          ConditionExpression: 'leaseUntil = :seen AND #state = :inProgress',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':next': now.getTime() + IDEMPOTENCY_LEASE_MS,
            ':seen': Item.leaseUntil,
            ':inProgress': 'in-progress',
          },
        }),
      );
      return { kind: 'resume', resourceId: Item.resourceId as string };
    } catch (error) {
      // Another retry resumed it first: it runs now, under a fresh lease.
      if (isConditionFailure(error))
        return { kind: 'in-progress', leaseUntil: now.getTime() + IDEMPOTENCY_LEASE_MS };
      throw error;
    }
  }

  /**
   * Stores the response: on the hashed record, or, for a request resumed from a record kept by
   * its key as written (there is then no hashed one), on that record; with neither (nothing but
   * the key's owner removes a claim), on the hashed record, as an update would.
   */
  async complete(ref: IdempotencyRef, response: StoredResponse): Promise<void> {
    const text = JSON.stringify(response.body ?? null);
    const large = Buffer.byteLength(text) > COMPRESS_ABOVE_BYTES;
    const done = (Key: Key, existing: boolean) =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression: 'SET #state = :done, #response = :r',
          ...(existing && { ConditionExpression: 'attribute_exists(pk)' }),
          ExpressionAttributeNames: { '#state': 'state', '#response': large ? 'responseGz' : 'response' },
          ExpressionAttributeValues: {
            ':done': 'done',
            ':r': large
              ? gzipSync(JSON.stringify({ status: response.status, body: response.body }))
              : response,
          },
        }),
      );
    const hashed = await this.hashed(ref);
    for (const [Key, existing] of [
      [hashed, true],
      [keys.idempotencyAsWritten(ref.merchantId, ref.scope, ref.key), true],
      [hashed, false],
    ] as const) {
      try {
        await done(Key, existing);
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  /**
   * Gives a claim up (the request failed before doing anything): the key may be used afresh. The
   * claim is the hashed record's, or one kept by the key as written.
   */
  async release(ref: IdempotencyRef): Promise<void> {
    await this.whileRunning(ref, async (Key) => {
      try {
        await this.db.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key,
            ConditionExpression: '#state = :inProgress',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':inProgress': 'in-progress' },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return false;
      }
    });
  }

  async endLease(ref: IdempotencyRef): Promise<void> {
    await this.whileRunning(ref, (Key) =>
      updateIf(this.db, {
        TableName: this.tableName,
        Key,
        UpdateExpression: 'SET leaseUntil = :ended',
        ConditionExpression: '#state = :inProgress',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':ended': 0, ':inProgress': 'in-progress' },
      }),
    );
  }

  /** `change` made to the running claim: the hashed record's, or one kept by the key as written. */
  private async whileRunning(ref: IdempotencyRef, change: (Key: Key) => Promise<boolean>): Promise<void> {
    if (await change(await this.hashed(ref))) return;
    await change(keys.idempotencyAsWritten(ref.merchantId, ref.scope, ref.key));
  }
}

/** The answer a done record replays, as it was kept (plain or gzipped). */
function storedResponse(item: Record<string, unknown>): StoredResponse {
  const gz = item.responseGz;
  if (gz instanceof Uint8Array) return JSON.parse(gunzipSync(gz).toString('utf8')) as StoredResponse;
  return item.response as StoredResponse;
}

/** The container's store, on the configured table (made on first use). */
export const idempotencyStore: () => IdempotencyStore =
  /* @__PURE__ */ containerStore(DynamoIdempotencyStore);
