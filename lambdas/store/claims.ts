/**
 * Processing claims on group items: pending → processing (exactly one starter wins), the
 * release of a claim whose execution never started, and processing → processed.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/keys';
import type { Group } from '#domain/groups';
import type { ProcessingSummary } from '#domain/processing';
import { containerStore, isConditionFailure } from './items';
import { readGroup } from './groups';

export type ClaimOutcome = { claimed: true } | { claimed: false; group?: Group };

export interface ClaimStore {
  /**
   * Claims a pending group for processing. The group keeps its due-index keys until it
   * completes, so a claim whose execution never started is found again by the next tick.
   * When refused: the group as stored (undefined when it does not exist).
   */
  claim(groupId: string, executionName: string, now: Date): Promise<ClaimOutcome>;
  /** Undoes a claim whose execution could not be started (only if still ours and unstarted). */
  releaseClaim(groupId: string, executionName: string, now: Date): Promise<void>;
  /** processing → processed, with the outcome summary; leaves the due index. Idempotent. */
  complete(groupId: string, summary: ProcessingSummary): Promise<void>;
}

export class DynamoClaimStore implements ClaimStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(groupId: string, executionName: string, now: Date): Promise<ClaimOutcome> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET #status = :processing, executionName = :e, claimedAt = :now, lastUpdated = :now',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':pending': 'pending',
            ':e': executionName,
            ':now': now.toISOString(),
          },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { claimed: false, group: await readGroup(this.db, this.tableName, groupId) };
    }
  }

  async releaseClaim(groupId: string, executionName: string, now: Date): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression: 'SET #status = :pending, lastUpdated = :now REMOVE executionName, claimedAt',
          ConditionExpression: '#status = :processing AND executionName = :e',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':pending': 'pending',
            ':e': executionName,
            ':now': now.toISOString(),
          },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async complete(groupId: string, summary: ProcessingSummary): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET #status = :processed, processingSummary = :s, lastUpdated = :now REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processed': 'processed',
            ':processing': 'processing',
            ':s': summary,
            ':now': summary.processedAt,
          },
        }),
      )
      .catch((error: unknown) => {
        // Completed already (a retried step): nothing to do.
        if (!isConditionFailure(error)) throw error;
      });
  }
}

/** The container's store, on the configured table (made on first use). */
export const claimStore: () => ClaimStore = containerStore(DynamoClaimStore);
