/** Sales for the transactions-core tests: a stored payor's profile, and a sale request on it. */
import type { SaleRequest } from '#core/sale';
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
