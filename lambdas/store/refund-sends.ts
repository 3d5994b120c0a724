/**
 * A refund written ahead and sent later (a scheduled refund, a refund held until its debit
 * cleared: core/scheduled-refunds.ts) is marked sent (`sentAt`) before the processor is asked. A
 * crash after the processor refunded leaves the refund Pending with the mark: the next try replays
 * it under its key whatever happened to the sale since (a dispute opened meanwhile), and records
 * what the processor did, never Failed for a refund the processor made.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Refund } from '#domain/transactions';
import { keys } from './keys';
import { updateIf } from './items';

/** Marks the Pending refund sent at `at` (the first mark stands); nothing when it is finished. */
export async function markRefundSent(
  db: DynamoDBDocumentClient,
  tableName: string,
  refund: Refund,
  at: string,
): Promise<void> {
  await updateIf(db, {
    TableName: tableName,
    Key: keys.refund(refund.transactionId, refund.refundId),
    UpdateExpression: 'SET sentAt = if_not_exists(sentAt, :at)',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':at': at, ':pending': 'Pending' },
  });
}
