/**
 * Duplicate-check guards in DynamoDB: `DUP#mid#method#cents` / `DUP` or `DUP#ORDER#<orderId>`
 * names the last approved (or in-flight) sale of that amount on that method for that orderId
 * (two sales differing only in orderId are not duplicates; docs/decisions.md "Duplicate check
 * and orderId"); claiming it is a conditional put that succeeds only when it is absent, older
 * than the window, or ours. Of N identical concurrent sales exactly one claims it; the others are
 * duplicates.
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, epoch, RECORD_TTL_SECONDS } from './items';

/** What makes two sales duplicates of each other (within the window). */
export interface DuplicateKey {
  merchantId: string;
  methodId: string;
  amountCents: number;
  /** Absent: equal to every other sale without orderId. */
  orderId?: string;
  /**
   * The scheduled payment a sale charges: a guard held by an earlier attempt of the same payment
   * does not make its retry a duplicate (the retry is that payment's next attempt).
   */
  paymentId?: string;
}

interface DuplicateGuards {
  /** Claims the duplicate guard; the earlier transaction's id when this sale is a duplicate. */
  guardDuplicate(
    key: DuplicateKey,
    transactionId: string,
    now: Date,
    windowSeconds: number,
  ): Promise<string | undefined>;
  /** A declined sale blocks nothing: its guard is removed (only if it is still ours). */
  releaseGuard(key: DuplicateKey, transactionId: string): Promise<void>;
}

const guardKey = (k: DuplicateKey) => keys.duplicateGuard(k.merchantId, k.methodId, k.amountCents, k.orderId);

class DynamoDuplicateGuards implements DuplicateGuards {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Claims the duplicate guard; returns the earlier transaction's id when this sale is a duplicate. */
  async guardDuplicate(
    key: DuplicateKey,
    transactionId: string,
    now: Date,
    windowSeconds: number,
  ): Promise<string | undefined> {
    const Key = guardKey(key);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Key,
            entity: 'duplicate-guard',
            transactionId,
            ...(key.paymentId !== undefined && { paymentId: key.paymentId }),
            at: now.getTime(),
            expiresAt: epoch(now) + RECORD_TTL_SECONDS,
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR #at < :windowStart OR transactionId = :me' +
            (key.paymentId !== undefined ? ' OR paymentId = :payment' : ''),
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: {
            ':windowStart': now.getTime() - windowSeconds * 1000,
            ':me': transactionId,
            ...(key.paymentId !== undefined && { ':payment': key.paymentId }),
          },
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    // Released in between: try once more.
    if (!Item) return this.guardDuplicate(key, transactionId, now, windowSeconds);
    // Held by a sale received more than the window after this one (this one resumed late: its
    // time is when it was received): they are no duplicates of each other, and the later one
    // keeps the guard. Within the window either way, the one checked second is the duplicate.
    if ((Item.at as number) >= now.getTime() + windowSeconds * 1000) return undefined;
    return Item.transactionId as string;
  }

  /** A declined sale blocks nothing: its guard is removed (only if it is still ours). */
  async releaseGuard(key: DuplicateKey, transactionId: string): Promise<void> {
    await this.db
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: guardKey(key),
          ConditionExpression: 'transactionId = :me',
          ExpressionAttributeValues: { ':me': transactionId },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
}

/** The container's guards, on the configured table (made on first use). */
export const duplicateGuards: () => DuplicateGuards = /* @__PURE__ */ containerStore(DynamoDuplicateGuards);
