/**
 * The test clock's reads and writes (non-production; core/test-clock.ts): a merchant's approved
 * sales whose cut-off is still ahead, found on the transactions' day index, their cut-off moved,
 * and the merchant's mark (the time up to which the clock settled).
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Transaction } from '#domain/transactions';
import { queryDaysBounded } from './day-index';
import { READ_LIMITS } from './read-limits';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, strip } from './items';

/** A run of settle-now calls under way: the window is read over several calls. */
interface SettleRun {
  /** When its first call was made: the mark its last call writes. */
  startedAt: string;
  /** How far its calls have read the day index (store/day-index.ts DaysRead). */
  readThrough: string;
}

interface TestClockStore {
  /**
   * Approved, unvoided sales of the merchant processed in [since, until] whose cut-off is after
   * `until` and that the clock has not settled already, read from `from` (a run's `readThrough`)
   * on and evaluating about `budget` entries of the day index (every merchant's sales are on it):
   * `readThrough` says where the read stopped when the budget ran out.
   */
  unsettledSales(
    merchantId: string,
    window: { since: string; from?: string; until: string },
    budget?: number,
  ): Promise<{ sales: Transaction[]; readThrough?: string }>;
  /**
   * Moves a sale's cut-off to `at` and marks it settled by the clock, if it is still approved,
   * unvoided, unmarked and at `from`; false otherwise.
   */
  settle(transactionId: string, from: string, at: string): Promise<boolean>;
  /** Records that the merchant's sales processed up to `through` are settled (a later mark wins); ends a run. */
  mark(merchantId: string, through: string): Promise<void>;
  /** The merchant's mark, if the clock ever ran for it. */
  settledThrough(merchantId: string): Promise<string | undefined>;
  /** The merchant's run of calls under way, if any. */
  run(merchantId: string): Promise<SettleRun | undefined>;
  /** Records how far the merchant's run has read. */
  saveRun(merchantId: string, run: SettleRun): Promise<void>;
}

/** A sale's position on the day index: where a read that settled it may go on from. */
export const salePosition = (sale: Pick<Transaction, 'processedAt' | 'transactionId'>): string =>
  keys.dayIndex('TXN', sale.processedAt, sale.transactionId).gsi1sk;

class DynamoTestClockStore implements TestClockStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async unsettledSales(
    merchantId: string,
    window: { since: string; from?: string; until: string },
    budget: number = READ_LIMITS.settleNowRead,
  ): Promise<{ sales: Transaction[]; readThrough?: string }> {
    const { since, from, until } = window;
    // Sort keys are `<processedAt>#<id>`: the window's sales of each day, every merchant's.
    const read = await queryDaysBounded(
      this.db,
      this.tableName,
      'TXN',
      {
        since,
        until,
        ...(from !== undefined && from > since && { from }),
        to: `${until}~`,
        filter: {
          expression:
            'merchantId = :mid AND #status = :approved AND settlesAt > :until AND attribute_not_exists(voidingAt) AND attribute_not_exists(clockSettledAt)',
          names: { '#status': 'status' },
          values: { ':mid': merchantId, ':approved': 'Approved', ':until': `${until}~` },
        },
      },
      budget,
    );
    return {
      sales: read.items.map((item) => strip<Transaction>(item)),
      ...(read.readThrough !== undefined && { readThrough: read.readThrough }),
    };
  }

  async settle(transactionId: string, from: string, at: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.transaction(transactionId),
          UpdateExpression: 'SET settlesAt = :at, clockSettledAt = :at',
          // A void reserved, another call's settlement, or anything else changed meanwhile: that
          // sale is left as it is. The mark, not the cut-off, says a sale is settled: a concurrent
          // call may take its time before the processor's settlement time written here.
          ConditionExpression:
            '#status = :approved AND settlesAt = :from AND attribute_not_exists(voidingAt) AND attribute_not_exists(clockSettledAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':approved': 'Approved', ':from': from, ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async mark(merchantId: string, through: string): Promise<void> {
    const key = keys.testClock(merchantId);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression:
            'SET entity = :entity, merchantId = :mid, settledThrough = :through REMOVE settleRun',
          ConditionExpression: 'attribute_not_exists(settledThrough) OR settledThrough < :through',
          ExpressionAttributeValues: { ':entity': 'test-clock', ':mid': merchantId, ':through': through },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A later mark stands; the run ends all the same.
      await this.db.send(
        new UpdateCommand({ TableName: this.tableName, Key: key, UpdateExpression: 'REMOVE settleRun' }),
      );
    }
  }

  async settledThrough(merchantId: string): Promise<string | undefined> {
    const Item = await this.read(merchantId);
    return typeof Item?.settledThrough === 'string' ? Item.settledThrough : undefined;
  }

  async run(merchantId: string): Promise<SettleRun | undefined> {
    const run = (await this.read(merchantId))?.settleRun as SettleRun | undefined;
    return run?.startedAt !== undefined && run.readThrough !== undefined ? run : undefined;
  }

  async saveRun(merchantId: string, run: SettleRun): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.testClock(merchantId),
        UpdateExpression: 'SET entity = :entity, merchantId = :mid, settleRun = :run',
        ExpressionAttributeValues: { ':entity': 'test-clock', ':mid': merchantId, ':run': run },
      }),
    );
  }

  private async read(merchantId: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.testClock(merchantId), ConsistentRead: true }),
    );
    return Item;
  }
}

export const testClockStore = /* @__PURE__ */ containerStore(DynamoTestClockStore);
