import { payorsOf } from '#core/profiles';
import { runSale } from '#core/sale';
import { toCents } from '#domain/money';
import { processorKeys } from '#domain/processor-keys';
import { transactionView } from '#domain/transactions';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { newId } from '#shared/ids';

/**
 * POST /v1/rest/merchants/{MID}/transactions: a sale with a saved method. 201 with the
 * transaction whether Approved or Declined (a duplicate is Declined, responseCode 19). Keyed (the
 * header or the body's idempotencyKey), the sale's id is the key's: a retry that resumes a request
 * which died half-way finds its Pending record and charges nothing twice (core/sale.ts).
 */
export const handler = merchantRoute(routes.CreateSale, async ({ merchant, body, now, idempotency }) => {
  const transactionId = idempotency?.resourceId ?? newId();
  // The sale's record carries its payor's sponsorKey as it is now (a replay keeps the first's).
  const sponsorKey = (await payorsOf(merchant.merchantId, [body])).values().next().value?.sponsorKey;
  const txn = await runSale(
    {
      transactionId,
      processorKey: processorKeys.sale(transactionId),
      merchantId: merchant.merchantId,
      profileId: body.profileId,
      amountCents: toCents(body.amount),
      allowPartial: body.allowPartial ?? false,
      orderId: body.orderId,
      ...(sponsorKey !== undefined && { sponsorKey }),
      missingMethod: 'reject',
    },
    now,
  );
  return { status: 201, body: transactionView(txn, [], now) };
});
