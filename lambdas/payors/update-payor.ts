import { assertSameId } from '#domain/groups';
import { payorView, type Payor } from '#domain/payors';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { PAYOR, withOptimisticRetry } from '#shared/retry';
import { changePayor, requirePayor } from '#core/payors';

/** PUT /v1/rest/merchants/{MID}/payors/{PayorID}: fields present are changed. */
export const handler = merchantRoute(routes.UpdatePayor, async ({ merchant, params, body, now }) => {
  const payorId = params.PayorID;
  assertSameId('payorId', body.payorId, payorId);
  const result = await withOptimisticRetry(async () => {
    const { payor, methods } = await requirePayor(payorId, merchant.merchantId);
    const next: Payor = {
      ...payor,
      customerAccountId: body.customerAccountId ?? payor.customerAccountId,
      customerAccountType: body.customerAccountType ?? payor.customerAccountType,
      sponsorKey: body.sponsorKey ?? payor.sponsorKey,
      customerData: (body.customerData as Record<string, string> | undefined) ?? payor.customerData,
      email: body.email ?? payor.email,
      lastUpdated: now.toISOString(),
    };
    return (await changePayor(payor, next)) ? payorView(next, methods) : undefined;
  }, PAYOR);
  return { status: 200, body: result };
});
