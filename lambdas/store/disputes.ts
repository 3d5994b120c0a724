/**
 * Card disputes written once (core/disputes.ts, domain/disputes.ts): one transaction holds the
 * notice's mark (store/notices.ts), the dispute's record (`DISPUTE#<disputeId>`, as read), its
 * row in the merchant's list (`DISPUTES#<mid>` / `<openedAt>#<disputeId>`), its event(s), the sale
 * and the scheduled payment that show it as their latest (each as read) and the notice's
 * follow-up written ahead. A lost race reads again; a mark already written means another caller
 * applied the notice. The list is read newest first a page at a time.
 */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import { disputeView, type Dispute, type DisputeStatus, type DisputeView } from '#domain/disputes';
import type { Payment } from '#domain/groups';
import type { NoticeFollowUp, NoticeRef } from '#domain/notices';
import type { Transaction } from '#domain/transactions';
import { eventPut, writeAnnounced } from './events';
import { conditionOutcome } from '#shared/ddb';
import { containerStore, sendThroughConflicts, strip, type Item } from './items';
import { keys } from './keys';
import { NoticeStore } from './notices';

/** What a dispute notice changes, as the core decided it on what it read. */
export interface DisputeChange {
  notice: NoticeRef;
  /** The dispute as read (absent: a new one) and as it is after. */
  dispute: { previous?: Dispute; next: Dispute };
  events: ServiceEvent[];
  /** The sale's status as read (Approved, or Voided where a void is a refund): it must stand. */
  saleStatus: Transaction['status'];
  /** The sale as read, when it shows the dispute after as its latest. */
  sale?: Transaction;
  /** The payment the sale charged as read, when it shows it too. */
  payment?: Payment;
  /** The notice's follow-up work, written ahead (done in order). */
  followUps: NoticeFollowUp[];
}

/** `applied-before`: the notice's mark exists; `changed`: a record changed since it was read. */
type DisputeWrite = 'ok' | 'applied-before' | 'changed';

/** At most this many reads fill one page of a list filtered by status. */
const FILTERED_READS = 10;

class DisputeStore {
  private readonly notices: NoticeStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.notices = new NoticeStore(db, tableName);
  }

  /** The dispute, if it is this merchant's. */
  async get(disputeId: string, merchantId?: string): Promise<Dispute | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.dispute(disputeId), ConsistentRead: true }),
    );
    if (!Item || (merchantId !== undefined && Item.merchantId !== merchantId)) return undefined;
    return strip<Dispute>(Item);
  }

  /** Writes the change in one transaction (item 0 is the mark, item 1 the dispute). */
  async write(change: DisputeChange, now: Date): Promise<DisputeWrite> {
    const { previous, next } = change.dispute;
    const view = disputeView(next);
    const items: object[] = [
      this.notices.markPut(change.notice, 'applied', now),
      {
        Put: {
          TableName: this.tableName,
          Item: { ...keys.dispute(next.disputeId), entity: 'dispute', ...next },
          ...(previous
            ? {
                ConditionExpression: 'noticeSeq = :seen',
                ExpressionAttributeValues: { ':seen': previous.noticeSeq },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.merchantDispute(next.merchantId, next.openedAt, next.disputeId),
            entity: 'dispute-row',
            status: next.status,
            row: view,
          },
        },
      },
      ...change.events.map((event) => eventPut(this.tableName, event)),
    ];
    items.push(
      change.sale
        ? this.saleItem(change.sale, view, next)
        : this.saleAsRead(next.transactionId, change.saleStatus, next),
    );
    if (change.payment) items.push(this.paymentItem(change.payment, view, now));
    const [work, ...also] = change.followUps;
    if (work) items.push(this.notices.followUpPut(change.notice.noticeId, work, now, also));
    try {
      // Its mark refused: another caller applied the notice.
      const written = await sendThroughConflicts(() => writeAnnounced(this.db, items, 0));
      return written ? 'ok' : 'applied-before';
    } catch (error) {
      return conditionOutcome<DisputeWrite>(error, [['any', 'changed']]);
    }
  }

  /**
   * The sale's `dispute` (and `disputeLost` when it is lost), if its disputes and its status are as
   * read: the core decided on the sale as read (domain/disputes.ts disputeDecision), and one voided
   * since may have no charge left to dispute, so the notice is read again.
   */
  private saleItem(sale: Transaction, view: DisputeView, dispute: Dispute) {
    const lost = dispute.status === 'lost';
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.transaction(sale.transactionId),
        UpdateExpression: `SET dispute = :d, disputeRev = :rev${lost ? ', disputeLost = :lost' : ''}`,
        ConditionExpression: `${
          sale.disputeRev === undefined ? 'attribute_not_exists(disputeRev)' : 'disputeRev = :seen'
        } AND #status = :status`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':d': view,
          ':rev': (sale.disputeRev ?? 0) + 1,
          ':status': sale.status,
          ...(sale.disputeRev !== undefined && { ':seen': sale.disputeRev }),
          ...(lost && { ':lost': dispute.disputeId }),
        },
      },
    };
  }

  /**
   * The same condition on a sale that shows a newer dispute than this one: nothing written on it,
   * unless this one is lost (kept as `disputeLost`: no refund after it, whatever the sale shows).
   */
  private saleAsRead(transactionId: string, status: Transaction['status'], dispute: Dispute) {
    const check = {
      TableName: this.tableName,
      Key: keys.transaction(transactionId),
      ConditionExpression: '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
    };
    return dispute.status === 'lost'
      ? {
          Update: {
            ...check,
            UpdateExpression: 'SET disputeLost = :lost',
            ExpressionAttributeValues: { ':status': status, ':lost': dispute.disputeId },
          },
        }
      : { ConditionCheck: { ...check, ExpressionAttributeValues: { ':status': status } } };
  }

  /** The payment's `dispute`, if it is as read. */
  private paymentItem(payment: Payment, view: DisputeView, now: Date) {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.payment(payment.paymentGroupId, payment.paymentId),
        UpdateExpression: 'SET dispute = :d, lastUpdated = :now',
        ConditionExpression: 'lastUpdated = :seen',
        ExpressionAttributeValues: { ':d': view, ':now': now.toISOString(), ':seen': payment.lastUpdated },
      },
    };
  }

  /**
   * A page of the merchant's disputes, newest first, after `after` (a row's sort key); with
   * `status`, only those with it now (a page read at most FILTERED_READS times: it may hold
   * fewer than `pageSize` and still have a next one).
   */
  async page(
    merchantId: string,
    pageSize: number,
    options: { after?: string; status?: DisputeStatus },
  ): Promise<{ rows: DisputeView[]; last?: string; more: boolean }> {
    const pk = keys.merchantDisputes(merchantId);
    // One more than the page: whether another follows (none after a page that ends the list).
    const found: Item[] = [];
    let start: string | undefined = options.after;
    let more = false;
    for (let reads = 0; reads < FILTERED_READS && found.length <= pageSize; reads++) {
      const { Items = [], LastEvaluatedKey }: { Items?: Item[]; LastEvaluatedKey?: Item } =
        await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk',
            ...(options.status !== undefined && {
              FilterExpression: '#status = :status',
              ExpressionAttributeNames: { '#status': 'status' },
            }),
            ExpressionAttributeValues: {
              ':pk': pk,
              ...(options.status !== undefined && { ':status': options.status }),
            },
            ScanIndexForward: false,
            Limit: pageSize + 1 - found.length,
            ...(start !== undefined && { ExclusiveStartKey: { pk, sk: start } }),
          }),
        );
      found.push(...Items);
      more = LastEvaluatedKey !== undefined;
      if (!more) break;
      start = String(LastEvaluatedKey!.sk);
    }
    const rows = found.slice(0, pageSize).map((i) => i.row as DisputeView);
    if (found.length > pageSize) return { rows, last: String(found[pageSize - 1]!.sk), more: true };
    return { rows, ...(more && start !== undefined && { last: start }), more };
  }
}

/** The container's store, on the configured table (made on first use). */
export const disputeStore: () => DisputeStore = /* @__PURE__ */ containerStore(DisputeStore);
