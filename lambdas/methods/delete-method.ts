import { replacementDefault } from '#domain/payors';
import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#shared/http';
import { MethodNotFoundError, payorStore, retrying } from '#store/payors';

/**
 * DELETE .../payors/{PayorID}/savedPaymentMethods/{PaymentMethodID}: refused for the only
 * method; deleting the default makes the oldest remaining method the default, atomically.
 */
export const handler = merchantRoute({}, async ({ merchant, params }) => {
  const store = payorStore();
  const methodId = params.PaymentMethodID!;
  await retrying(async () => {
    const { payor, methods } = await store.require(params.PayorID!, merchant.merchantId);
    if (!methods.some((m) => m.savedPaymentMethodId === methodId)) throw new MethodNotFoundError(methodId);
    if (methods.length === 1)
      throw new BadRequestError('the only saved payment method of a payor cannot be deleted');
    return (await store.deleteMethod(payor, methodId, replacementDefault(methods, methodId)))
      ? true
      : undefined;
  });
  return { status: 204 };
});
