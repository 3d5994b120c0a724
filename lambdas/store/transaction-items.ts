/**
 * Write items and conditions on sales and refunds that more than one store puts in its
 * transactions (store/transactions.ts, store/bank-notices.ts), and a void's.
 */
import { nextSequence } from '#domain/events';
import {
  MAX_FAILED_REFUNDS_PER_SALE,
  MAX_REFUNDS_PER_SALE,
  transactionEvent,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { eventPut, sequenced } from './events';
import { keys } from './keys';
import { debitCountItem, isBankDebit } from './return-rates';

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

/**
 * A void's write on its sale as read (Approved → Voided): the sale's Update, on its status and,
 * for a sale of the transactions API, its event count as read; with `transaction.voided`, numbered
 * after the sale's events so far, and a bank debit's count in its merchant's return rates taken
 * back (the bank never saw it), in the same transaction.
 */
export function voidedItems(tableName: string, txn: Transaction, at: string) {
  const announced = txn.paymentId === undefined;
  const seq = sequenced(txn.eventSeq);
  const update = {
    TableName: tableName,
    Key: keys.transaction(txn.transactionId),
    UpdateExpression: `SET #status = :voided, voidedAt = :at, voidingAt = if_not_exists(voidingAt, :at)${announced ? `, ${seq.set}` : ''} REMOVE gsi2pk, gsi2sk`,
    ConditionExpression: announced ? `#status = :approved AND ${seq.condition}` : '#status = :approved',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':voided': 'Voided',
      ':approved': 'Approved',
      ':at': at,
      ...(announced && seq.values),
    },
  };
  const together: object[] = isBankDebit(txn) ? [debitCountItem(tableName, txn, -1)] : [];
  if (announced) {
    const voided: Transaction = {
      ...txn,
      status: 'Voided',
      voidedAt: at,
      eventSeq: nextSequence(txn.eventSeq),
    };
    together.push(eventPut(tableName, transactionEvent('transaction.voided', voided, new Date(at))));
  }
  return { update, together };
}
