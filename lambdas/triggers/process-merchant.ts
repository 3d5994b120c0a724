import { startMerchantGroups } from '#core/processing';
import { assertTriggerAllowed, triggerResult } from '#core/triggers';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * POST /rest/merchants/{MID}/process-payments (non-production), optional body
 * `{scheduleDate, scheduleHour}`: processes every pending group of that slot (of that date when
 * only scheduleDate is given; all pending groups without a body), at most
 * MERCHANT_TRIGGER_GROUPS a call (`more` when others are left).
 */
export const handler = merchantRoute(routes.ProcessMerchant, async ({ merchant, params, body, now }) => {
  assertTriggerAllowed(params.MID);
  const slot = { date: body?.scheduleDate, hour: body?.scheduleHour };
  const { outcomes, more } = await startMerchantGroups(merchant.merchantId, slot, now);
  return { status: 200, body: { ...triggerResult(outcomes), ...(more && { more }) } };
});
