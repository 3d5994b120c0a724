import { startProcessing } from '#core/processing';
import { assertTriggerAllowed, triggerResult } from '#core/triggers';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { requireGroup } from '#core/groups';

/**
 * POST /rest/merchants/{MID}/groups/{GroupID}/process-payments (non-production): processes the
 * group now. A group that is processing, processed or deleted is still a 200, with an `error`
 * entry and totalFailed 1; nothing is charged again.
 */
export const handler = merchantRoute(routes.ProcessGroup, async ({ merchant, params, now }) => {
  assertTriggerAllowed(params.MID);
  const group = await requireGroup(params.GroupID, merchant.merchantId);
  return { status: 200, body: triggerResult([await startProcessing(group, now)]) };
});
