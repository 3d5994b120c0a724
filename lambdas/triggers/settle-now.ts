import * as routes from '#generated/validators';
import { settleNow } from '#core/test-clock';
import { assertTriggerAllowed } from '#core/triggers';
import { merchantRoute } from '#core/merchants';

/**
 * POST /rest/merchants/{MID}/settle-now (non-production test clock): settles the merchant's
 * approved sales now, so that refunds and receipts need not wait for the cut-off.
 */
export const handler = merchantRoute(routes.SettleNow, async ({ merchant, params, now }) => {
  assertTriggerAllowed(params.MID, 'settle-now');
  return { status: 200, body: await settleNow(merchant.merchantId, now) };
});
