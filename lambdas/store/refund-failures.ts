/**
 * A refund failed after the processor accepted it, written once (core/refund-failures.ts,
 * domain/refund-failures.ts): one transaction holds the notice's mark (store/notices.ts), the
 * refund Failed (only while it is Completed), its amount given back to its sale (and its place,
 * counted as failed), its `refund.failed` event, and the scheduled payment's voidOrRefundResponses
 * (if the payment is as read). A lost race reads again; a mark already written means another
 * caller applied the notice.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { Payment } from '#domain/groups';
import type { NoticeRef } from '#domain/notices';
import type { Refund } from '#domain/transactions';
import { conditionOutcome } from '#shared/ddb';
import { eventPut, writeAnnounced } from './events';
import { containerStore, sendThroughConflicts } from './items';
import { keys } from './keys';
import { NoticeStore } from './notices';

/** What a refund's failure changes, as the core decided it on what it read. */
export interface RefundFailureChange {
  notice: NoticeRef;
  /** The refund as it is after (Failed); it was Completed. */
  refund: Refund;
  event: ServiceEvent;
  /** The payment the refund reversed, as read and after (its response Failed). */
  payment?: { previous: Payment; next: Payment };
}

/** `applied-before`: the notice's mark exists; `changed`: a record changed since it was read. */
type RefundFailureWrite = 'ok' | 'applied-before' | 'changed';

class RefundFailureStore {
  private readonly notices: NoticeStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.notices = new NoticeStore(db, tableName);
  }

  /** Writes the change in one transaction (item 0 is the mark, item 1 the refund). */
  async write(change: RefundFailureChange, now: Date): Promise<RefundFailureWrite> {
    const { refund } = change;
    const items: object[] = [
      this.notices.markPut(change.notice, 'applied', now),
      {
        Update: {
          TableName: this.tableName,
          Key: keys.refund(refund.transactionId, refund.refundId),
          UpdateExpression: 'SET #status = :s, responseCode = :c, responseMessage = :m',
          ConditionExpression: '#status = :completed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':s': refund.status,
            ':c': refund.responseCode,
            ':m': refund.responseMessage,
            ':completed': 'Completed',
          },
        },
      },
      {
        // Given back as a refund refused at once (store/transactions.ts finishRefund).
        Update: {
          TableName: this.tableName,
          Key: keys.transaction(refund.transactionId),
          UpdateExpression: 'ADD refundedCents :minus, refundCount :minusOne, failedRefundCount :one',
          ConditionExpression: 'attribute_exists(pk) AND refundedCents >= :amount',
          ExpressionAttributeValues: {
            ':minus': -refund.amountCents,
            ':minusOne': -1,
            ':one': 1,
            ':amount': refund.amountCents,
          },
        },
      },
      eventPut(this.tableName, change.event),
    ];
    if (change.payment) {
      const { previous, next } = change.payment;
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.payment(previous.paymentGroupId, previous.paymentId),
          UpdateExpression: 'SET voidOrRefundResponses = :r, lastUpdated = :now',
          ConditionExpression: 'lastUpdated = :seen',
          ExpressionAttributeValues: {
            ':r': next.voidOrRefundResponses,
            ':now': next.lastUpdated,
            ':seen': previous.lastUpdated,
          },
        },
      });
    }
    try {
      // Its mark refused: another caller applied the notice.
      const written = await sendThroughConflicts(() => writeAnnounced(this.db, items, 0));
      return written ? 'ok' : 'applied-before';
    } catch (error) {
      // Another record refused: it changed since it was read.
      return conditionOutcome<RefundFailureWrite>(error, [['any', 'changed']]);
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const refundFailureStore: () => RefundFailureStore =
  /* @__PURE__ */ containerStore(RefundFailureStore);
