import { STALE_AFTER_SECONDS, sweepSale } from '#core/sweeper';
import { transactionView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requireTransaction } from '#core/transactions';

/**
 * GET /v1/rest/merchants/{MID}/transactions/{TransactionID}: with refund fields and history. A sale
 * Pending for longer than a request can run is settled on this touch (core/sweeper.ts), so that
 * an integrator never waits for the scheduled sweep.
 */
export const handler = merchantRoute(routes.GetTransaction, async ({ merchant, params, now }) => {
  let found = await requireTransaction(params.TransactionID, merchant.merchantId);
  const { transaction } = found;
  if (
    transaction.status === 'Pending' &&
    now.getTime() - Date.parse(transaction.processedAt) > STALE_AFTER_SECONDS * 1000
  ) {
    await sweepSale(transaction, now);
    found = await requireTransaction(params.TransactionID, merchant.merchantId);
  }
  return { status: 200, body: transactionView(found.transaction, found.refunds, now) };
});
