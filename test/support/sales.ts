/**
 * Sales for the transactions-core tests: a stored payor's profile, a sale request on it, and a
 * scheduled payment charged as processing charges it.
 */
import { runSale, type SaleRequest } from '#core/sale';
import type { Payment } from '#domain/groups';
import { saleAuthResponse } from '#domain/processing';
import { transactionView, type Transaction } from '#domain/transactions';
import { paymentStore } from '#store/payments';
import { newId } from '#shared/ids';
import { DynamoPayorStore } from '#store/payors';
import type { TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

/** A stored payor whose default method behaves as `profile` at the sandbox; its profileId. */
export async function storedProfile(table: TestTable, merchantId: string, profile = 'ok'): Promise<string> {
  const { payor, method } = makePayor(merchantId, {}, profile);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  return `${payor.payorId}/${method.savedPaymentMethodId}`;
}

/** A sale of `amountCents` with a fresh transaction id and its derived processor key. */
export function saleRequest(
  merchantId: string,
  profileId: string,
  amountCents: number,
  extra: Partial<SaleRequest> = {},
): SaleRequest {
  const transactionId = newId();
  return {
    transactionId,
    processorKey: `sale:${transactionId}`,
    merchantId,
    profileId,
    amountCents,
    allowPartial: false,
    missingMethod: 'reject',
    ...extra,
  };
}

/** Charges a stored payment on `profileId` as processing does (its key) and records its authResponse. */
export async function chargeScheduledPayment(
  merchantId: string,
  profileId: string,
  payment: Payment,
): Promise<Transaction> {
  const txn = await runSale(
    {
      ...saleRequest(merchantId, profileId, payment.amountCents),
      processorKey: `payment:${payment.paymentId}`,
      paymentId: payment.paymentId,
    },
    new Date(),
  );
  const auth = saleAuthResponse(transactionView(txn, [], new Date()));
  expect(await paymentStore().setAuthResponse(payment, auth, new Date())).toBe(true);
  return txn;
}
