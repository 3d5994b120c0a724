import { startProcessing } from '#core/processing';
import { assertTriggerAllowed, triggerResult } from '#core/triggers';
import { mapLimit } from '#shared/concurrency';
import * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { groupStore } from '#store/groups';

/**
 * POST /rest/merchants/{MID}/process-payments (non-production), optional body
 * `{scheduleDate, scheduleHour}`: processes every pending group of that slot (of that date when
 * only scheduleDate is given; all pending groups without a body).
 */
export const handler = merchantRoute(routes.ProcessMerchant, async ({ merchant, params, body, now }) => {
  assertTriggerAllowed(params.MID);
  const groups = await groupStore().listGroups(merchant.merchantId, {
    date: body?.scheduleDate,
    hour: body?.scheduleHour,
    pendingOnly: true,
  });
  const pending = groups.filter((g) => g.status === 'pending');
  const outcomes = await mapLimit(pending, 8, (group) => startProcessing(group, now));
  return { status: 200, body: triggerResult(outcomes) };
});
