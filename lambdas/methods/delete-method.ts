import { replacementDefault } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { PAYOR, withOptimisticRetry } from '#shared/retry';
import { removeMethod, requirePayor } from '#core/payors';

/**
 * DELETE .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: refused for the only
 * method; deleting the default makes the oldest remaining method the default, atomically.
 */
export const handler = merchantRoute(routes.DeleteMethod, async ({ merchant, params }) => {
  const methodId = params.PaymentMethodID;
  await withOptimisticRetry(async () => {
    const { payor, methods } = await requirePayor(params.PayorID, merchant.merchantId);
    return (await removeMethod(payor, methods, methodId, replacementDefault(methods, methodId)))
      ? true
      : undefined;
  }, PAYOR);
  return { status: 204 };
});
