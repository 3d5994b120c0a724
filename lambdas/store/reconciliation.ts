/**
 * The service's side of reconciliation, read by time without a Scan: transactions and refunds from
 * the day index (GSI1 `TXN#DAY#…`, `REFUND#DAY#…`), and the unanswered payments of processed groups
 * (every merchant from GSI1 `MERCHANTS`, its groups by slot from GSI1 `MERCHANT#mid`, then each
 * processed group's payments).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryDays } from './day-index';
import { keys, type DayKind } from './keys';
import type { Payment } from '#domain/groups';
import type { Refund, Transaction } from '#domain/transactions';
import { strip } from './items';
import { readAll } from './paging';
import { DynamoTransactionStore, type SaleWithRefunds } from './transactions';

export class ReconciliationRecords {
  private readonly transactions: DynamoTransactionStore;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.transactions = new DynamoTransactionStore(db, tableName);
  }

  /** Items of one day-indexed kind from `since` (inclusive) to `until` (exclusive). */
  private async byDay<T>(kind: DayKind, since: string, until: string): Promise<T[]> {
    // Sort keys are `<time>#<id>`: BETWEEN takes `since` itself and stops before `until`.
    const items = await queryDays(this.db, this.tableName, kind, { since, until });
    return items.map((item) => strip<T>(item));
  }

  salesBetween(since: string, until: string): Promise<Transaction[]> {
    return this.byDay<Transaction>('TXN', since, until);
  }

  refundsBetween(since: string, until: string): Promise<Refund[]> {
    return this.byDay<Refund>('REFUND', since, until);
  }

  /** A sale and its refunds, read consistently (one outside the window, named by the processor). */
  sale(transactionId: string): Promise<SaleWithRefunds | undefined> {
    return this.transactions.find(transactionId);
  }

  /** Payments without an answer in processed groups scheduled from `since` to `until`. */
  async unansweredPayments(since: string, until: string): Promise<Payment[]> {
    const merchants = await readAll(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ExpressionAttributeValues: { ':m': keys.merchantList },
    });
    const groups = (
      await Promise.all(
        merchants.map((m) =>
          readAll(this.db, {
            TableName: this.tableName,
            IndexName: 'gsi1',
            // Slots are `yyyy-mm-ddThh`: the hours of the window, both ends' hours included.
            KeyConditionExpression: 'gsi1pk = :m AND gsi1sk BETWEEN :from AND :to',
            FilterExpression: '#status = :processed',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':m': keys.merchantGroups(m.merchantId as string),
              ':from': since.slice(0, 13),
              ':to': `${until.slice(0, 13)}#\uffff`,
              ':processed': 'processed',
            },
          }),
        ),
      )
    ).flat();
    const payments = await Promise.all(
      groups.map((g) =>
        readAll(this.db, {
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          FilterExpression:
            '(attribute_not_exists(authResponse) OR attribute_type(authResponse, :nul)) AND deleted <> :yes',
          ExpressionAttributeValues: {
            ':pk': keys.group(g.paymentGroupId as string).pk,
            ':p': keys.paymentPrefix,
            ':nul': 'NULL',
            ':yes': true,
          },
          ConsistentRead: true,
        }),
      ),
    );
    return payments.flat().map((item) => strip<Payment>(item));
  }
}
