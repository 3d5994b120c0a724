/**
 * The due index (GSI2, sparse): pending groups, claimed-but-unfinished ones, processed ones
 * whose receipts are not queued yet and processed ones waiting for a retry round, by slot, spread over a few shards so that no partition takes
 * every group of an hour. Eventually consistent: claims check what the tick saw (see claims.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import type { Group } from '#domain/groups';
import { containerStore, strip } from './items';
import { readAll } from './paging';

export type DueGroup = Pick<
  Group,
  | 'paymentGroupId'
  | 'merchantId'
  | 'status'
  | 'scheduleDate'
  | 'scheduleHour'
  | 'claimedAt'
  | 'processingSince'
  | 'executionName'
  | 'executionArn'
  | 'processingAttempt'
  | 'awaitingRetry'
  | 'retrySlot'
>;

interface DueIndex {
  /** Groups due by `slot`: that hour and every earlier one (missed ticks are caught up). */
  dueGroups(slot: string): Promise<DueGroup[]>;
}

export class DynamoDueIndex implements DueIndex {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** One Query per shard. */
  async dueGroups(slot: string): Promise<DueGroup[]> {
    const pages = await Promise.all(
      keys.dueShards().map((shard) =>
        readAll(this.db, {
          TableName: this.tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :s AND gsi2sk < :end',
          ExpressionAttributeValues: { ':s': shard, ':end': `${slot}#\uffff` },
          ProjectionExpression:
            'paymentGroupId, merchantId, #status, scheduleDate, scheduleHour, claimedAt, processingSince, ' +
            'executionName, executionArn, processingAttempt, awaitingRetry, retrySlot',
          ExpressionAttributeNames: { '#status': 'status' },
        }),
      ),
    );
    return pages.flat().map((i) => strip<DueGroup>(i));
  }
}

/** The container's store, on the configured table (made on first use). */
export const dueIndex: () => DueIndex = /* @__PURE__ */ containerStore(DynamoDueIndex);
