/**
 * A refund (a scheduled refund, one held until its debit cleared, one sent when asked for:
 * core/scheduled-refunds.ts) is marked sent (`sentAt`) before the processor is asked, or
 * refused (`refusedAt`, its sale disputed) before it is recorded Failed: one mark or the other,
 * never both, whichever run writes first. A crash after the processor refunded leaves the refund
 * Pending with the sent mark: the next try replays it under its key whatever happened to the sale
 * since (a dispute opened meanwhile), and records what the processor did, never Failed for a
 * refund the processor made; nor does a run that read the refund unsent and its sale disputed
 * while another run was sending it (its refusal mark is refused).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Refund } from '#domain/transactions';
import { keys } from './keys';
import { updateIf } from './items';

/**
 * Marks the Pending refund sent at `at` (the first mark stands): false when it is finished or was
 * refused (the caller reads it again).
 */
export async function markRefundSent(
  db: DynamoDBDocumentClient,
  tableName: string,
  refund: Refund,
  at: string,
): Promise<boolean> {
  return updateIf(db, {
    TableName: tableName,
    Key: keys.refund(refund.transactionId, refund.refundId),
    UpdateExpression: 'SET sentAt = if_not_exists(sentAt, :at)',
    ConditionExpression: '#status = :pending AND attribute_not_exists(refusedAt)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':at': at, ':pending': 'Pending' },
  });
}

/**
 * Marks the Pending refund refused at `at` with `refusal` (the first mark stands): false when it is
 * finished or was marked sent (the caller reads it again).
 */
export async function markRefundRefused(
  db: DynamoDBDocumentClient,
  tableName: string,
  refund: Refund,
  at: string,
  refusal: string,
): Promise<boolean> {
  return updateIf(db, {
    TableName: tableName,
    Key: keys.refund(refund.transactionId, refund.refundId),
    UpdateExpression: 'SET refusedAt = if_not_exists(refusedAt, :at), refusal = if_not_exists(refusal, :r)',
    ConditionExpression: '#status = :pending AND attribute_not_exists(sentAt)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':at': at, ':r': refusal, ':pending': 'Pending' },
  });
}
