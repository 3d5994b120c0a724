import { transactionView } from '#domain/transactions';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { transactionStore } from '#store/transactions';

/** GET /v1/rest/merchants/{MID}/transactions/{TransactionID}: with refund fields and history. */
export const handler = merchantRoute(routes.GetTransaction, async ({ merchant, params, now }) => {
  const { transaction, refunds } = await transactionStore().require(
    params.TransactionID,
    merchant.merchantId,
  );
  return { status: 200, body: transactionView(transaction, refunds, now) };
});
