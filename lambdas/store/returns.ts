/**
 * The merchant's returns list (docs/product.md#returns): one item per returned debit
 * (`RETURNS#<mid>` / `<returnedAt>#<transactionId>`), written in the one transaction that applies
 * the return (store/bank-notices.ts), read newest first a page at a time.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReturnItem } from '#contract/schemas/returns';
import type { Transaction } from '#domain/transactions';
import { fromCents } from '#domain/money';
import { containerStore } from './items';
import { keys } from './keys';

/** The list's row of a sale as returned (its `return` set). */
export function returnRow(sale: Transaction): ReturnItem {
  const ret = sale.return!;
  return {
    transactionId: sale.transactionId,
    ...(sale.paymentId !== undefined && { paymentId: sale.paymentId }),
    ...(sale.paymentGroupId !== undefined && { paymentGroupId: sale.paymentGroupId }),
    code: ret.code,
    category: ret.category,
    amount: fromCents(sale.approvedCents),
    returnedAt: ret.returnedAt,
    ...(ret.afterRefund === true && { afterRefund: true as const }),
  };
}

/** The row's Put for the return's transaction (once: a second return of a sale is stale). */
export function returnPut(tableName: string, merchantId: string, row: ReturnItem) {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.merchantReturn(merchantId, row.returnedAt, row.transactionId), entity: 'return', row },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

class ReturnStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** A page of the merchant's returns, newest first, after `after` (a row's sort key). */
  async page(
    merchantId: string,
    pageSize: number,
    after?: string,
  ): Promise<{ rows: ReturnItem[]; last?: string; more: boolean }> {
    const pk = keys.merchantReturns(merchantId);
    const { Items = [], LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        // One more than the page: whether another follows (none after a page that ends the list).
        Limit: pageSize + 1,
        ...(after !== undefined && { ExclusiveStartKey: { pk, sk: after } }),
      }),
    );
    const page = Items.slice(0, pageSize);
    return {
      rows: page.map((i) => i.row as ReturnItem),
      ...(page.length > 0 && { last: String(page.at(-1)!.sk) }),
      more: Items.length > pageSize || LastEvaluatedKey !== undefined,
    };
  }
}

export const returnStore: () => ReturnStore = /* @__PURE__ */ containerStore(ReturnStore);
