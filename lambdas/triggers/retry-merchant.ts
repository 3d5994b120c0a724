import { retryNow } from '#core/retry-rounds';
import { assertTriggerAllowed, triggerResult } from '#core/triggers';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * POST /rest/merchants/{MID}/retry-payments (non-production, test MIDs): every retry round the
 * merchant's groups wait for, started now (at most MERCHANT_TRIGGER_GROUPS a call, `more` when
 * others wait), or why none started (core/retry-rounds.ts).
 */
export const handler = merchantRoute(routes.RetryMerchant, async ({ merchant, params, now }) => {
  assertTriggerAllowed(params.MID, 'retry-payments');
  const { outcomes, nothingStarted, more } = await retryNow(merchant.merchantId, now);
  return { status: 200, body: { ...triggerResult(outcomes), ...nothingStarted, ...(more && { more }) } };
});
