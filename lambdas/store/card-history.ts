/**
 * A card's (or bank account's) history at a merchant, which the retry limits count
 * (domain/retries.ts): one item per sale attempt on it, `CARDUSE#<mid>#<cardKey>` /
 * `<began at>#<transactionId>`, kept 181 days (the longest window, Nacha's 180 days, and a day).
 *
 * Every answered sale writes its entry in the same write as its record (store/transactions.ts),
 * so the history misses no charge, scheduled or of the API. A scheduled payment's retry writes
 * its entry first, `pending`, before it is admitted and charged (core/retries.ts): concurrent
 * retries of one card each see the others' entries, and a crash between leaves an entry that
 * counts (never fewer than were made).
 */
import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CardUse } from '#domain/retries';
import type { Transaction } from '#domain/transactions';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, epoch, type Item } from './items';
import { readAll } from './paging';

/** Kept this long after the attempt began: Nacha's 180-day window and a day. */
const HISTORY_TTL_SECONDS = 181 * 24 * 3600;

/** An attempt as its history records it. */
export interface CardUseEntry extends CardUse {
  merchantId: string;
  cardKey: string;
  transactionId: string;
}

const entryItem = (entry: CardUseEntry): Item => ({
  ...keys.cardUse(entry.merchantId, entry.cardKey, entry.at, entry.transactionId),
  entity: 'card-use',
  at: entry.at,
  outcome: entry.outcome,
  retry: entry.retry,
  transactionId: entry.transactionId,
  expiresAt: epoch(new Date(entry.at)) + HISTORY_TTL_SECONDS,
});

/**
 * The history entry an answered sale writes with its record, if it has one: a sale that reached
 * (or may have reached) the processor on a known card; not a duplicate, refused before it.
 */
export function saleUseItem(txn: Transaction): Item | undefined {
  if (txn.cardKey === undefined || txn.status === 'Pending' || txn.isDuplicate) return undefined;
  return entryItem({
    merchantId: txn.merchantId,
    cardKey: txn.cardKey,
    at: txn.cardUseAt ?? txn.processedAt,
    transactionId: txn.transactionId,
    outcome: txn.status === 'Approved' || txn.status === 'Voided' ? 'approved' : 'declined',
    retry: (txn.attempt ?? 1) > 1,
  });
}

interface CardHistory {
  /**
   * The card's attempts that began after `since`, and the last one before it (which tells whether
   * the first after it was a reattempt), in time order; read consistently.
   */
  since(merchantId: string, cardKey: string, since: string): Promise<CardUse[]>;
  /** A retry's entry, written before it is admitted (once: an entry already there is kept). */
  reserve(entry: CardUseEntry): Promise<void>;
  /** A retry not admitted: its pending entry goes (only while still pending). */
  release(entry: CardUseEntry): Promise<void>;
}

class DynamoCardHistory implements CardHistory {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async since(merchantId: string, cardKey: string, since: string): Promise<CardUse[]> {
    const pk = keys.cardHistory(merchantId, cardKey);
    const [before, after] = await Promise.all([
      this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk < :since',
          ExpressionAttributeValues: { ':pk': pk, ':since': since },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      ),
      readAll(this.db, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        ExpressionAttributeValues: { ':pk': pk, ':since': since },
        ConsistentRead: true,
      }),
    ]);
    return [...(before.Items ?? []), ...after].map((i) => ({
      at: i.at as string,
      outcome: i.outcome as CardUse['outcome'],
      retry: i.retry === true,
    }));
  }

  async reserve(entry: CardUseEntry): Promise<void> {
    await this.db
      .send(
        new PutCommand({
          TableName: this.tableName,
          Item: entryItem(entry),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async release(entry: CardUseEntry): Promise<void> {
    await this.db
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.cardUse(entry.merchantId, entry.cardKey, entry.at, entry.transactionId),
          ConditionExpression: 'outcome = :pending',
          ExpressionAttributeValues: { ':pending': 'pending' },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
}

/** The container's history, on the configured table (made on first use). */
export const cardHistory: () => CardHistory = /* @__PURE__ */ containerStore(DynamoCardHistory);
