/** Reading a transaction: for a request a foreign or unknown id is the same 404. */
import { NotFoundError } from '#shared/errors';
import type { Refund, Transaction } from '#domain/transactions';
import { transactionStore, type SaleWithRefunds } from '#store/transactions';

export async function requireTransaction(
  transactionId: string,
  merchantId: string,
): Promise<{ transaction: Transaction; refunds: Refund[] }> {
  const found = await transactionStore().findForMerchant(transactionId, merchantId);
  if (!found) throw new NotFoundError(`transaction ${transactionId} not found`);
  return found;
}

/** The sale with its refunds, whichever merchant's (for the service's own tasks). */
export const findTransaction = (transactionId: string): Promise<SaleWithRefunds | undefined> =>
  transactionStore().find(transactionId);
