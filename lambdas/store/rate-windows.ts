/**
 * The processor rate's window counters (core/processor-rate.ts): one item per shard and second
 * (`RATE#<shard>#<epochSecond>` / `RATE`), and one per group and second for a group's own cap
 * (`RATE#G#<groupId>#<epochSecond>` / `RATE`). A take is one conditional ADD on one item: it
 * goes through only while the count stays within the limit, so that no window is ever counted
 * past it, whatever the number of callers (single-item writes serialize: no transaction, whose
 * concurrent writers on one hot item would conflict). The items expire an hour later (TTL).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { containerStore, updateIf } from './items';

/** Window items live this long after their second (TTL): long enough to read one in a test. */
const RATE_WINDOW_TTL_SECONDS = 3600;

/** The windows' names: a group's own, its merchant's, and the shards of the processor's rate. */
export const rateWindowNames = {
  group: (groupId: string) => `G#${groupId}`,
  merchant: (merchantId: string) => `M#${merchantId}`,
  shard: (shard: number) => String(shard),
};

export interface RateWindowStore {
  /**
   * Adds `n` to the count of the window `key` for `second` if it stays at most `limit`: true when
   * taken, false when the window has no room for `n`.
   */
  take(key: string, second: number, n: number, limit: number): Promise<boolean>;
  /** Gives `n` taken but unused back to the window (its count only ever goes down by this). */
  giveBack(key: string, second: number, n: number): Promise<void>;
  /** The window's count (tests and tools). */
  count(key: string, second: number): Promise<number>;
}

export class DynamoRateWindowStore implements RateWindowStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  take(key: string, second: number, n: number, limit: number): Promise<boolean> {
    if (n > limit) return Promise.resolve(false);
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keys.rateWindow(key, second),
      UpdateExpression: 'ADD used :n SET entity = :e, expiresAt = :ttl',
      ConditionExpression: 'attribute_not_exists(used) OR used <= :max',
      ExpressionAttributeValues: {
        ':n': n,
        ':max': limit - n,
        ':e': 'rateWindow',
        ':ttl': second + RATE_WINDOW_TTL_SECONDS,
      },
    });
  }

  async giveBack(key: string, second: number, n: number): Promise<void> {
    await updateIf(this.db, {
      TableName: this.tableName,
      Key: keys.rateWindow(key, second),
      UpdateExpression: 'ADD used :minus',
      ConditionExpression: 'used >= :n',
      ExpressionAttributeValues: { ':minus': -n, ':n': n },
    });
  }

  async count(key: string, second: number): Promise<number> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.rateWindow(key, second), ConsistentRead: true }),
    );
    return Number(out.Item?.used ?? 0);
  }
}

/** The container's store, on the configured table (made on first use). */
export const rateWindowStore: () => RateWindowStore = /* @__PURE__ */ containerStore(DynamoRateWindowStore);
