import type { Payor } from '#domain/payors';
import { payorView } from '#domain/payors';
import { createMethod } from '#core/methods';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { newId } from '#shared/ids';
import { savePayor } from '#core/payors';

/** POST /v1/rest/merchants/{MID}/payors: a payor with its first saved method (the default). */
export const handler = merchantRoute(routes.CreatePayor, async ({ merchant, body, now }) => {
  const payorId = newId();
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
});
