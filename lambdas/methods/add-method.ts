import { methodView } from '#domain/payors';
import { createMethod } from '#core/methods';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { addMethod, assertRoomForMethod, requirePayor } from '#core/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods: adds a method; the default
 * changes only with `setAsDefault: true`. Keyed, the method's id is the key's: a retry resuming an
 * add that died after its write answers that method.
 */
export const handler = merchantRoute(
  routes.AddMethod,
  async ({ merchant, params, body, now, idempotency }) => {
    const before = await requirePayor(params.PayorID, merchant.merchantId);
    const written = idempotency?.resumed
      ? before.methods.find((m) => m.savedPaymentMethodId === idempotency.resourceId)
      : undefined;
    if (written) return { status: 201, body: methodView(written, before.payor.defaultPaymentMethodId) };
    assertRoomForMethod(before.payor);
    const { method, setAsDefault } = await createMethod({
      raw: body,
      payorId: params.PayorID,
      merchantId: merchant.merchantId,
      now,
      ...(idempotency && { savedPaymentMethodId: idempotency.resourceId }),
    });
    await addMethod(method, setAsDefault, now);
    const { payor } = await requirePayor(params.PayorID, merchant.merchantId);
    return { status: 201, body: methodView(method, payor.defaultPaymentMethodId) };
  },
);
