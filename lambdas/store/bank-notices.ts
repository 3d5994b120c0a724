/**
 * A bank debit's clearing or return written once (core/bank-notices.ts, domain/bank-notices.ts):
 * one transaction holds the notice's mark (store/notices.ts), the sale's new state, the refunds
 * the return cancels, the payment the sale charged (its authResponse and attempt) and the
 * event(s) announcing it (store/events.ts), the notice's follow-up written ahead, and for a return
 * the count of it in its merchant's return rates (store/return-rates.ts): counted with the mark,
 * so exactly once. A returned payment's move into its group's summary is its own write, done by
 * the follow-up (countReturn). Every record holds only as read: a lost race reads again; a mark already
 * written means another caller applied the notice.
 */
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { Payment } from '#domain/groups';
import type { NoticeFollowUp, NoticeRef } from '#domain/notices';
import type { Refund, Transaction } from '#domain/transactions';
import { announcedUpdate, eventPut, writeAnnounced } from './events';
import { conditionOutcome } from '#shared/ddb';
import { containerStore, sendThroughConflicts } from './items';
import { keys } from './keys';
import { NoticeStore } from './notices';
import { returnCountItems } from './return-rates';
import { refundFinished } from './transaction-items';
import { saleUseItem } from './card-history';
import { returnPut, returnRow } from './returns';

/** What a bank notice changes, as the core decided it on what it read. */
export interface BankNoticeChange {
  notice: NoticeRef;
  /** The sale as read, and as it is after. */
  sale: { previous: Transaction; next: Transaction };
  /** The sale's event (a sale of the transactions API: its `eventSeq` moves with it). */
  saleEvent?: ServiceEvent;
  /** Held refunds the return cancels, each as it is after (Failed). */
  cancelledRefunds: Refund[];
  /** Their events (refunds of the transactions API: refund.failed). */
  refundEvents: ServiceEvent[];
  /** The payment the sale charged, as read and after, with its event. */
  payment?: { previous: Payment; next: Payment; event: ServiceEvent };
  /** Its follow-up steps, written ahead as one item (none: no item). */
  followUps: NoticeFollowUp[];
}

/** `applied-before`: the notice's mark exists; `changed`: a record changed since it was read. */
type BankNoticeWrite = 'ok' | 'applied-before' | 'changed';

/** The sale's attributes a notice sets. */
const SALE_FIELDS = [
  'status',
  'cleared',
  'clearedAt',
  'return',
  'noticeSeq',
  'refundedCents',
  'refundCount',
] as const;

class BankNoticeStore {
  private readonly notices: NoticeStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.notices = new NoticeStore(db, tableName);
  }

  /** The sale's Update: the fields the notice sets, if the sale is as read. */
  private saleChange(previous: Transaction, next: Transaction) {
    const fields = SALE_FIELDS.filter((f) => next[f] !== undefined && next[f] !== previous[f]);
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {
      ':seenStatus': previous.status,
      ':seenCount': previous.refundCount,
    };
    for (const f of fields) {
      names[`#${f}`] = f;
      values[`:${f}`] = next[f];
    }
    if (previous.noticeSeq !== undefined) values[':seenNotice'] = previous.noticeSeq;
    return {
      Key: keys.transaction(previous.transactionId),
      set: fields.map((f) => `#${f} = :${f}`).join(', '),
      condition:
        '#status = :seenStatus AND refundCount = :seenCount AND attribute_not_exists(voidingAt) AND ' +
        (previous.noticeSeq === undefined ? 'attribute_not_exists(noticeSeq)' : 'noticeSeq = :seenNotice'),
      names,
      values,
    };
  }

  /** Writes the change in one transaction (item 0 is the mark, item 1 the sale). */
  async write(change: BankNoticeChange, now: Date): Promise<BankNoticeWrite> {
    const { previous, next } = change.sale;
    const sale = this.saleChange(previous, next);
    const saleItems = change.saleEvent
      ? announcedUpdate(this.tableName, sale, previous.eventSeq, change.saleEvent)
      : [
          {
            Update: {
              TableName: this.tableName,
              Key: sale.Key,
              UpdateExpression: `SET ${sale.set}`,
              ConditionExpression: sale.condition,
              ExpressionAttributeNames: sale.names,
              ExpressionAttributeValues: sale.values,
            },
          },
        ];
    const items: object[] = [this.notices.markPut(change.notice, 'applied', now), ...saleItems];
    for (const refund of change.cancelledRefunds) items.push(refundFinished(this.tableName, refund));
    for (const event of change.refundEvents) items.push(eventPut(this.tableName, event));
    if (change.payment) items.push(...this.paymentItems(change.payment));
    const [work, ...also] = change.followUps;
    if (work) items.push(this.notices.followUpPut(change.notice.noticeId, work, now, also));
    // The merchant's returns list: the row of a sale returned now; and in the account's history
    // (the retry limits') the debit is a declined attempt from now on, so that the next debit of
    // the account counts as its reinitiation.
    if (next.status === 'Returned' && previous.status !== 'Returned') {
      items.push(returnPut(this.tableName, next.merchantId, returnRow(next)));
      const use = saleUseItem(next);
      if (use) items.push({ Put: { TableName: this.tableName, Item: use } });
    }
    // A return counts against its debit's day in the merchant's return rates, by its category.
    if (next.return && previous.status !== 'Returned')
      items.push(...returnCountItems(this.tableName, next, next.return.category, now));
    try {
      // Its mark refused: another caller applied the notice. The day's counter is shared with the
      // merchant's other debits of that day: a transaction cancelled by a conflict on it changed
      // nothing and is sent again.
      const written = await sendThroughConflicts(() => writeAnnounced(this.db, items, 0));
      return written ? 'ok' : 'applied-before';
    } catch (error) {
      // Another record refused: it changed since it was read.
      return conditionOutcome<BankNoticeWrite>(error, [['any', 'changed']]);
    }
  }

  /**
   * Moves a payment's return or dispute into its group's processingSummary once: the payment
   * marked (`mark`: `returnCounted` with its sale, or `disputeCounted` with its dispute and
   * `disputeCountedCents` with the amount counted, `cents`) if it is as read and not so marked,
   * with the summary's counters moved by `delta`
   * (domain/summary-deltas.ts), only while no run of the group counts its payments (processed,
   * no retry round charging: a run's count would overwrite the move).
   * `changed`: the payment changed since it was read; `busy`: a run of the group is counting.
   */
  async countInSummary(
    payment: Payment,
    mark: { field: 'returnCounted' | 'disputeCounted'; value: string; cents?: number },
    delta: Readonly<Record<string, number>>,
  ): Promise<'ok' | 'changed' | 'busy'> {
    const fields = Object.entries(delta);
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':processed': 'processed', ':m': payment.merchantId };
    fields.forEach(([field, by], i) => {
      names[`#f${i}`] = field;
      values[`:d${i}`] = by;
    });
    const group = {
      Update: {
        TableName: this.tableName,
        Key: keys.group(payment.paymentGroupId),
        UpdateExpression: `ADD ${fields.map((_, i) => `processingSummary.#f${i} :d${i}`).join(', ')}`,
        ConditionExpression:
          '#status = :processed AND merchantId = :m AND attribute_exists(processingSummary) AND ' +
          'attribute_not_exists(retryBound)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
    const items = [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.payment(payment.paymentGroupId, payment.paymentId),
          UpdateExpression: `SET #mark = :t${mark.cents !== undefined ? ', #cents = :c' : ''}`,
          ConditionExpression: 'lastUpdated = :seen AND (attribute_not_exists(#mark) OR #mark <> :t)',
          ExpressionAttributeNames: {
            '#mark': mark.field,
            ...(mark.cents !== undefined && { '#cents': `${mark.field}Cents` }),
          },
          ExpressionAttributeValues: {
            ':t': mark.value,
            ':seen': payment.lastUpdated,
            ...(mark.cents !== undefined && { ':c': mark.cents }),
          },
        },
      },
      // A move of nothing (a dispute of the same amount counted before): the mark alone.
      ...(fields.length > 0 ? [group] : []),
    ];
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items }));
      return 'ok';
    } catch (error) {
      return conditionOutcome<'changed' | 'busy'>(error, [
        [0, 'changed'],
        [1, 'busy'],
      ]);
    }
  }

  /** The payment's authResponse, attempts and reversals as after, if it is as read, with its event. */
  private paymentItems({ previous, next, event }: NonNullable<BankNoticeChange['payment']>): object[] {
    return announcedUpdate(
      this.tableName,
      {
        Key: keys.payment(previous.paymentGroupId, previous.paymentId),
        set:
          `authResponse = :a, lastUpdated = :now${next.attempts ? ', attempts = :attempts' : ''}` +
          (next.voidOrRefundResponses ? ', voidOrRefundResponses = :reversals' : ''),
        condition: 'lastUpdated = :seen',
        values: {
          ':a': next.authResponse,
          ':now': next.lastUpdated,
          ':seen': previous.lastUpdated,
          ...(next.attempts && { ':attempts': next.attempts }),
          // A held refund the return cancelled: Failed on the payment too.
          ...(next.voidOrRefundResponses && { ':reversals': next.voidOrRefundResponses }),
        },
      },
      previous.eventSeq,
      event,
    );
  }
}

/** The container's store, on the configured table (made on first use). */
export const bankNoticeStore: () => BankNoticeStore = /* @__PURE__ */ containerStore(BankNoticeStore);
