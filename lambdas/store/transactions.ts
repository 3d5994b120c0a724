/**
 * Transactions and refunds in DynamoDB (idempotency records: `idempotency.ts`; duplicate-check
 * guards: `duplicates.ts`).
 *
 * - Refunds reserve their amount on the sale with `refundedCents <= approvedCents - amount` as the
 *   condition, in the same transaction that writes the Pending refund: racing refunds can never
 *   exceed the charge.
 * - A sale is written Pending before the processor is asked and settled conditionally on still
 *   being Pending. Pending sales, Pending refunds and reserved voids carry a sweep-index entry
 *   (GSI2 `SWEEP#shard`, `sweep-index.ts`), removed in the write that settles them.
 */
import {
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import {
  MAX_HELD_REFUNDS,
  refundEvent,
  transactionEvent,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, sendThroughConflicts, strip } from './items';
import { readAll } from './paging';
import { eventPut } from './events';
import { sweepEntry } from './sweep-index';
import { saleUseItem } from './card-history';
import { debitCountItem, isBankDebit } from './return-rates';
import { clock } from '#shared/clock';

/** Writes of a void on its sale read again (another change announced an event meanwhile). */
const VOID_RECORD_ATTEMPTS = 5;
import { NO_OPEN_DISPUTE, REFUND_ROOM, refundFinished, voidedItems } from './transaction-items';

export interface SaleWithRefunds {
  transaction: Transaction;
  refunds: Refund[];
}

interface TransactionStore {
  /** Writes a sale once; the stored one when it exists. */
  recordSale(txn: Transaction): Promise<Transaction>;
  /** Writes a Pending sale (with its sweep entry) once; the stored one when it exists. */
  beginSale(pending: Transaction): Promise<Transaction>;
  /**
   * Settles a Pending (or absent) sale with its answer and drops its sweep entry; the stored one
   * when it was settled already (the first answer wins). With `reversalDue`, the entry stays.
   */
  settleSale(txn: Transaction): Promise<Transaction>;
  /** The processor confirmed a due timeout reversal: the sweep entry goes. */
  reversalDone(transactionId: string): Promise<void>;
  find(transactionId: string): Promise<SaleWithRefunds | undefined>;
  /** The transaction and its refunds when it exists and is this merchant's. */
  findForMerchant(transactionId: string, merchantId: string): Promise<SaleWithRefunds | undefined>;
  reserveVoid(transactionId: string, at: string): Promise<boolean>;
  /** Approved → Voided (the processor approved the void), announced for a sale of the API. */
  markVoided(txn: Transaction, at: string): Promise<void>;
  /** The processor refused the void: the reservation goes (a refund may follow). */
  releaseVoid(transactionId: string): Promise<void>;
  reserveRefund(txn: Transaction, refund: Refund): Promise<boolean>;
  /** Pending → its outcome; with `announceFor` (the merchant), announced by refund.completed/failed. */
  finishRefund(
    refund: Refund,
    outcome: Pick<Refund, 'status' | 'responseCode' | 'responseMessage'>,
    announceFor?: string,
  ): Promise<Refund>;
}

export class DynamoTransactionStore implements TransactionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Writes a sale once; if it already exists (a resumed request), the stored one wins. */
  async recordSale(txn: Transaction): Promise<Transaction> {
    return this.putSale(txn, 'attribute_not_exists(pk)');
  }

  async beginSale(pending: Transaction): Promise<Transaction> {
    return this.putSale(
      pending,
      'attribute_not_exists(pk)',
      sweepEntry('sale', pending.transactionId, pending.processedAt),
    );
  }

  async settleSale(txn: Transaction): Promise<Transaction> {
    const entry = txn.reversalDue ? sweepEntry('reverse', txn.transactionId, txn.processedAt) : {};
    return this.putSale(txn, 'attribute_not_exists(pk) OR #status = :pending', entry);
  }

  /**
   * Puts a sale on `condition`; when it fails, the stored sale wins. A sale of the transactions API
   * (not a scheduled payment's, which its payment's events announce) that this write makes final
   * is announced by `transaction.approved` or `transaction.declined`, its first event, in the same
   * transaction: the first answer written is the one announced, once. A final sale on a known card
   * writes its entry in the card's history (store/card-history.ts) in the same transaction, and an
   * approved bank debit is counted for its merchant's return rates there too (once, as the write).
   */
  private async putSale(txn: Transaction, condition: string, entry: object = {}): Promise<Transaction> {
    const pending = condition.includes(':pending');
    const announced = txn.paymentId === undefined && txn.status !== 'Pending';
    const use = saleUseItem(txn);
    const put = {
      TableName: this.tableName,
      Item: {
        ...keys.transaction(txn.transactionId),
        // Listed by day for reconciliation (core/reconcile.ts).
        ...keys.dayIndex('TXN', txn.processedAt, txn.transactionId),
        ...entry,
        entity: 'transaction',
        ...txn,
        ...(announced && { eventSeq: 1 }),
      },
      ConditionExpression: condition,
      ...(pending && {
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'Pending' },
      }),
    };
    const type = txn.status === 'Approved' ? 'transaction.approved' : 'transaction.declined';
    const together = [
      ...(announced
        ? [
            eventPut(
              this.tableName,
              transactionEvent(type, { ...txn, eventSeq: 1 }, new Date(txn.processedAt)),
            ),
          ]
        : []),
      // The history entry replaces the retry's pending one (same key): no condition.
      ...(use ? [{ Put: { TableName: this.tableName, Item: use } }] : []),
      ...(txn.status === 'Approved' && isBankDebit(txn) ? [debitCountItem(this.tableName, txn, 1)] : []),
    ];
    try {
      if (together.length > 0) {
        await sendThroughConflicts(() =>
          this.db.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, ...together] as never })),
        );
      } else {
        await this.db.send(new PutCommand(put));
      }
      return announced ? { ...txn, eventSeq: 1 } : txn;
    } catch (error) {
      if (together.length > 0) conditionOutcome(error, [[0, true]]);
      else if (!isConditionFailure(error)) throw error;
      return (await this.find(txn.transactionId))!.transaction;
    }
  }

  async reversalDone(transactionId: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.transaction(transactionId),
        UpdateExpression: 'REMOVE reversalDue, gsi2pk, gsi2sk',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  }

  async find(transactionId: string): Promise<{ transaction: Transaction; refunds: Refund[] } | undefined> {
    const items = await readAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.transaction(transactionId).pk },
      ConsistentRead: true,
    });
    const txn = items.find((i) => i.entity === 'transaction');
    if (!txn) return undefined;
    return {
      transaction: strip<Transaction>(txn),
      refunds: items
        .filter((i) => i.entity === 'refund')
        .map((i) => strip<Refund>(i))
        .sort((a, b) => a.date.localeCompare(b.date) || a.refundId.localeCompare(b.refundId)),
    };
  }

  async findForMerchant(transactionId: string, merchantId: string): Promise<SaleWithRefunds | undefined> {
    const found = await this.find(transactionId);
    return found?.transaction.merchantId === merchantId ? found : undefined;
  }

  /**
   * Reserves a void before the processor is asked: from then on no refund can be reserved, and a
   * repeat (a retry after a crash) finishes the void whatever the time. False when refunds exist.
   */
  async reserveVoid(transactionId: string, at: string): Promise<boolean> {
    const entry = sweepEntry('void', transactionId, at);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.transaction(transactionId),
          UpdateExpression:
            'SET voidingAt = if_not_exists(voidingAt, :at), gsi2pk = :shard, gsi2sk = if_not_exists(gsi2sk, :sort)',
          ConditionExpression: `#status = :approved AND refundedCents = :zero AND ${NO_OPEN_DISPUTE.condition}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ...NO_OPEN_DISPUTE.values,
            ':approved': 'Approved',
            ':at': at,
            ':zero': 0,
            ':shard': entry.gsi2pk,
            ':sort': entry.gsi2sk,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Approved → Voided once the processor approved the void; a repeat is a no-op. The reservation
   * is not a condition: a concurrent caller whose processor call was refused may have released it
   * meanwhile, and an approved void must be recorded all the same. A sale of the transactions API
   * is announced by `transaction.voided`, numbered after its events so far: when another change
   * announced one meanwhile (a debit's clearing), the sale is read again and the void written on
   * it. Throws if the sale is neither Approved nor Voided (a void is never approved for a sale that
   * was not).
   */
  async markVoided(txn: Transaction, at: string): Promise<void> {
    let current = txn;
    for (let attempt = 0; attempt < VOID_RECORD_ATTEMPTS; attempt++) {
      const outcome = await this.voidOn(current, at);
      if (outcome.written) return;
      const found = (await this.find(txn.transactionId))?.transaction;
      if (found?.status === 'Voided') return;
      if (found?.status !== 'Approved') {
        throw new Error(
          `void of ${txn.transactionId} approved, but the sale is ${found?.status ?? 'missing'}`,
          { cause: outcome.refused },
        );
      }
      current = found;
    }
    throw new Error(`void of ${txn.transactionId} approved, but the sale kept changing; retry`);
  }

  /** The void's write on the sale as read: written, or refused by a condition (its error). */
  private async voidOn(
    txn: Transaction,
    at: string,
  ): Promise<{ written: true } | { written: false; refused: unknown }> {
    const { update, together } = voidedItems(this.tableName, txn, at);
    try {
      if (together.length > 0) {
        await sendThroughConflicts(() =>
          this.db.send(
            new TransactWriteCommand({ TransactItems: [{ Update: update }, ...together] as never }),
          ),
        );
      } else {
        await this.db.send(new UpdateCommand(update));
      }
      return { written: true };
    } catch (error) {
      if (together.length > 0) conditionOutcome(error, [[0, true]]);
      else if (!isConditionFailure(error)) throw error;
      return { written: false, refused: error };
    }
  }

  async releaseVoid(transactionId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.transaction(transactionId),
          UpdateExpression: 'REMOVE voidingAt, gsi2pk, gsi2sk',
          ConditionExpression: '#status = :approved AND attribute_exists(voidingAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':approved': 'Approved' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * Reserves a refund: the Pending refund item and the sale's refundedCents/refundCount move
   * together, on the condition that the amount still fits. False when it does not. A refund held
   * until the debit clears holds only while the sale has not cleared (a clearing written meanwhile
   * would never send it: the caller reads again and sends it now) and holds fewer than
   * MAX_HELD_REFUNDS (before it clears, every refund of a debit is held: refundCount counts them),
   * and has no sweep entry: the clearing's follow-up sends it (core/notice-follow-ups.ts). No sale
   * takes more than MAX_REFUNDS_PER_SALE, nor one after MAX_FAILED_REFUNDS_PER_SALE refused.
   */
  async reserveRefund(txn: Transaction, refund: Refund): Promise<boolean> {
    const held = refund.heldUntilCleared === true;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.transaction(txn.transactionId),
                UpdateExpression: 'ADD refundedCents :a, refundCount :one',
                ConditionExpression:
                  `#status = :approved AND refundedCents <= :limit AND attribute_not_exists(voidingAt) AND ${NO_OPEN_DISPUTE.condition}` +
                  ` AND ${REFUND_ROOM.condition}` +
                  (held
                    ? ' AND (attribute_not_exists(cleared) OR cleared = :no) AND refundCount < :maxHeld'
                    : ''),
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: {
                  ...NO_OPEN_DISPUTE.values,
                  ':a': refund.amountCents,
                  ':one': 1,
                  ':approved': 'Approved',
                  ':limit': txn.approvedCents - refund.amountCents,
                  ...REFUND_ROOM.values,
                  ...(held && { ':no': false, ':maxHeld': MAX_HELD_REFUNDS }),
                },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...keys.refund(txn.transactionId, refund.refundId),
                  ...keys.dayIndex('REFUND', refund.date, refund.refundId),
                  // A scheduled refund is due from its cut-off on: the sweeper leaves it until then.
                  ...(!held && sweepEntry('refund', refund.refundId, refund.sendAfter ?? refund.date)),
                  entity: 'refund',
                  ...refund,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      // The amount no longer fits, or this refund id was reserved by a concurrent repeat.
      return conditionOutcome(error, [['any', false]]);
    }
  }

  /** Pending → Completed, or Pending → Failed with the reserved amount given back. */
  async finishRefund(
    refund: Refund,
    outcome: Pick<Refund, 'status' | 'responseCode' | 'responseMessage'>,
    /** The merchant of a refund of the transactions API, announced; absent: not announced. */
    announceFor?: string,
  ): Promise<Refund> {
    const finished: Refund = { ...refund, ...outcome };
    const items: object[] = [refundFinished(this.tableName, finished)];
    if (outcome.status === 'Failed') {
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.transaction(refund.transactionId),
          UpdateExpression: 'ADD refundedCents :minus, refundCount :minusOne, failedRefundCount :one',
          ExpressionAttributeValues: { ':minus': -refund.amountCents, ':minusOne': -1, ':one': 1 },
        },
      });
    }
    if (announceFor !== undefined) {
      // A refund of the transactions API: refund.completed or refund.failed, its one event.
      const type = outcome.status === 'Completed' ? 'refund.completed' : 'refund.failed';
      const sale = (await this.find(refund.transactionId))?.transaction;
      items.push(eventPut(this.tableName, refundEvent(type, finished, announceFor, clock.now(), sale)));
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return finished;
    } catch (error) {
      // Finished already by a concurrent retry: the stored outcome stands.
      conditionOutcome(error, [[0, 'finished']]);
      const found = await this.find(refund.transactionId);
      return found!.refunds.find((r) => r.refundId === refund.refundId)!;
    }
  }
}

const containerTransactions = /* @__PURE__ */ containerStore(DynamoTransactionStore);
let substitute: TransactionStore | undefined;

/** The container's store, on the configured table (made on first use). */
export const transactionStore = (): TransactionStore => substitute ?? containerTransactions();

/** Test hook (the local runtime's fault injection): use this store instead of the container's. */
export const useTransactionStore = (store: TransactionStore | undefined): void => {
  substitute = store;
};
