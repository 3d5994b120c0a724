import { transactionView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requireTransaction } from '#core/transactions';

/**
 * GET /v1/rest/merchants/{MID}/transactions/{TransactionID}: with refund fields and history. A
 * read only (its function may only read the table, and has no processor settings): a sale left
 * Pending by a crash is answered Pending, and the sweeper settles it (core/sweeper.ts).
 */
export const handler = merchantRoute(routes.GetTransaction, async ({ merchant, params, now }) => {
  const { transaction, refunds } = await requireTransaction(params.TransactionID, merchant.merchantId);
  return { status: 200, body: transactionView(transaction, refunds, now) };
});
