/**
 * The test clock's reads and writes (non-production; core/test-clock.ts): a merchant's approved
 * sales whose cut-off is still ahead, found on the transactions' day index, their cut-off moved,
 * and the merchant's mark (the time up to which the clock settled).
 */
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Transaction } from '#domain/transactions';
import { queryDays } from './day-index';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, strip } from './items';

interface TestClockStore {
  /**
   * Approved, unvoided sales of the merchant processed in [since, until] whose cut-off is after
   * `until` and that the clock has not settled already.
   */
  unsettledSales(merchantId: string, since: string, until: string): Promise<Transaction[]>;
  /**
   * Moves a sale's cut-off to `at` and marks it settled by the clock, if it is still approved,
   * unvoided, unmarked and at `from`; false otherwise.
   */
  settle(transactionId: string, from: string, at: string): Promise<boolean>;
  /** Records that the merchant's sales processed up to `through` are settled (a later mark wins). */
  mark(merchantId: string, through: string): Promise<void>;
  /** The merchant's mark, if the clock ever ran for it. */
  settledThrough(merchantId: string): Promise<string | undefined>;
}

class DynamoTestClockStore implements TestClockStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async unsettledSales(merchantId: string, since: string, until: string): Promise<Transaction[]> {
    // Sort keys are `<processedAt>#<id>`: the window's sales of each day, every merchant's.
    const items = await queryDays(this.db, this.tableName, 'TXN', {
      since,
      until,
      to: `${until}~`,
      filter: {
        expression:
          'merchantId = :mid AND #status = :approved AND settlesAt > :until AND attribute_not_exists(voidingAt) AND attribute_not_exists(clockSettledAt)',
        names: { '#status': 'status' },
        values: { ':mid': merchantId, ':approved': 'Approved', ':until': `${until}~` },
      },
    });
    return items.map((item) => strip<Transaction>(item));
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
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.testClock(merchantId), entity: 'test-clock', merchantId, settledThrough: through },
          ConditionExpression: 'attribute_not_exists(pk) OR settledThrough < :through',
          ExpressionAttributeValues: { ':through': through },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async settledThrough(merchantId: string): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.testClock(merchantId), ConsistentRead: true }),
    );
    return typeof Item?.settledThrough === 'string' ? Item.settledThrough : undefined;
  }
}

export const testClockStore = /* @__PURE__ */ containerStore(DynamoTestClockStore);
