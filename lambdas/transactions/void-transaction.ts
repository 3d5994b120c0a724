import { voidTransaction } from '#core/reversals';
import { transactionView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requireTransaction } from '#core/transactions';

/** POST /v1/rest/merchants/{MID}/transactions/{TransactionID}/void: 200 with the voided sale. */
export const handler = merchantRoute(routes.VoidTransaction, async ({ merchant, params, now }) => {
  await voidTransaction(merchant.merchantId, params.TransactionID, now);
  const { transaction, refunds } = await requireTransaction(params.TransactionID, merchant.merchantId);
  return { status: 200, body: transactionView(transaction, refunds, now) };
});
