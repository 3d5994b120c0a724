import type { Payor } from '#domain/payors';
import { methodInputProblems } from '#domain/method-input';
import { payorView } from '#domain/payors';
import { createMethod } from '#core/methods';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { clock } from '#shared/clock';
import { newId } from '#shared/ids';
import { assertCustomerAccountIdFree, findPayor, savePayor } from '#core/payors';

/**
 * POST /v1/rest/merchants/{MID}/payors: a payor with its first saved method (the default). Keyed,
 * the payor's id is the key's: a retry resuming a create that died after its write answers it.
 */
/** The first method's problems, listed with the body's (its schema passes `paymentMethod` through). */
const methodProblems = (body: unknown) => {
  const method =
    typeof body === 'object' && body !== null
      ? (body as { paymentMethod?: unknown }).paymentMethod
      : undefined;
  return typeof method === 'object' && method !== null && !Array.isArray(method)
    ? methodInputProblems(method, clock.now(), 'paymentMethod')
    : [];
};

export const handler = merchantRoute(
  routes.CreatePayor,
  async ({ merchant, body, now, idempotency }) => {
    const payorId = idempotency?.resourceId ?? newId();
    if (idempotency?.resumed) {
      const written = await findPayor(payorId, merchant.merchantId);
      if (written) return { status: 201, body: payorView(written.payor, written.methods) };
    }
    await assertCustomerAccountIdFree(merchant.merchantId, body.customerAccountId);
    const { method } = await createMethod({
      raw: body.paymentMethod,
      payorId,
      merchantId: merchant.merchantId,
      now,
      root: 'paymentMethod',
    });
    const ts = now.toISOString();
    const payor: Payor = {
      payorId,
      merchantId: merchant.merchantId,
      customerAccountId: body.customerAccountId,
      customerAccountType: body.customerAccountType,
      sponsorKey: body.sponsorKey,
      customerData: body.customerData as Record<string, string> | undefined,
      email: body.email,
      defaultPaymentMethodId: method.savedPaymentMethodId,
      methodCount: 1,
      dateCreated: ts,
      lastUpdated: ts,
    };
    await savePayor(payor, method);
    return { status: 201, body: payorView(payor, [method]) };
  },
  { nested: methodProblems },
);
