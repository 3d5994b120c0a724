/**
 * Write items and conditions on sales and refunds that more than one store puts in its
 * transactions (store/transactions.ts, store/bank-notices.ts).
 */
import { keys } from './keys';
import { MAX_FAILED_REFUNDS_PER_SALE, MAX_REFUNDS_PER_SALE, type Refund } from '#domain/transactions';

/**
 * The transaction item that gives a Pending refund its outcome (`finished`: the refund as it is
 * after) and takes it out of the sweep index; it holds only while the refund is Pending.
 */
export const refundFinished = (tableName: string, finished: Refund) => ({
  Update: {
    TableName: tableName,
    Key: keys.refund(finished.transactionId, finished.refundId),
    UpdateExpression: 'SET #status = :s, responseCode = :c, responseMessage = :m REMOVE gsi2pk, gsi2sk',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':s': finished.status,
      ':c': finished.responseCode,
      ':m': finished.responseMessage,
      ':pending': 'Pending',
    },
  },
});

/**
 * The condition that no dispute of the sale is open or was ever lost (domain/transactions.ts disputedNow), for
 * a void's or a refund's reservation: a dispute applied between their read and their write
 * refuses them.
 */
export const NO_OPEN_DISPUTE = {
  condition:
    'NOT (dispute.#status IN (:inquiry, :needsResponse, :underReview, :lost)) AND attribute_not_exists(disputeLost)',
  values: {
    ':inquiry': 'inquiry',
    ':needsResponse': 'needs_response',
    ':underReview': 'under_review',
    ':lost': 'lost',
  },
} as const;

/**
 * A refund's reservation: the sale takes another one (MAX_REFUNDS_PER_SALE completed and pending)
 * and has not refused too many (MAX_FAILED_REFUNDS_PER_SALE).
 */
export const REFUND_ROOM = {
  condition:
    '(attribute_not_exists(refundCount) OR refundCount < :maxRefunds) AND ' +
    '(attribute_not_exists(failedRefundCount) OR failedRefundCount < :maxFailed)',
  values: { ':maxRefunds': MAX_REFUNDS_PER_SALE, ':maxFailed': MAX_FAILED_REFUNDS_PER_SALE },
} as const;
