import { replacementDefault } from '#domain/payors';
import { BadRequestError } from '#shared/errors';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';
import { PAYOR, withOptimisticRetry } from '#shared/retry';
import { MethodNotFoundError, methodStore } from '#store/methods';
import { payorStore } from '#store/payors';

/**
 * DELETE .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: refused for the only
 * method; deleting the default makes the oldest remaining method the default, atomically.
 */
export const handler = merchantRoute(routes.DeleteMethod, async ({ merchant, params }) => {
  const store = payorStore();
  const methodId = params.PaymentMethodID;
  await withOptimisticRetry(async () => {
    const { payor, methods } = await store.require(params.PayorID, merchant.merchantId);
    if (!methods.some((m) => m.savedPaymentMethodId === methodId)) throw new MethodNotFoundError(methodId);
    if (methods.length === 1)
      throw new BadRequestError('the only saved payment method of a payor cannot be deleted');
    return (await methodStore().deleteMethod(payor, methodId, replacementDefault(methods, methodId)))
      ? true
      : undefined;
  }, PAYOR);
  return { status: 204 };
});
