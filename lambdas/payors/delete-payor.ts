import * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { PAYOR, withOptimisticRetry } from '#shared/retry';
import { requirePayor } from '#core/payors';
import { payorStore } from '#store/payors';

/**
 * DELETE /v1/rest/merchants/{MID}/payors/{PayorID}: removes the payor, its saved methods and its
 * customerAccountId. Scheduled payments that still name one of its methods are declined at
 * processing (category 1, "Payment method no longer exists").
 */
export const handler = merchantRoute(routes.DeletePayor, async ({ merchant, params }) => {
  const store = payorStore();
  await withOptimisticRetry(
    async () =>
      (await store.delete(await requirePayor(params.PayorID, merchant.merchantId))) ? true : undefined,
    PAYOR,
  );
  return { status: 204 };
});
