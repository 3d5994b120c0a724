/**
 * POST /rest/merchants/{MID}/groups/{GroupID}/void-or-refund, optional `{paymentIds: [...]}`:
 * reverses the group's approved payments (core/void-or-refund.ts) and counts the outcomes. A
 * whole group of more than 1,000 payments, deleted ones included (VOID_OR_REFUND_BACKGROUND_ABOVE, at most
 * that) cannot be reversed within one request: it is reversed in the background (core/void-or-refund-run.ts), 202 with the execution; at most 1,000
 * `paymentIds` (the schema) are reversed within the request, none started past its deadline.
 */
import { VOID_OR_REFUND } from '#contract/processing';
import * as routes from '#generated/validators';
import { requireGroup } from '#core/groups';
import { voidOrRefundGroup, type Outcome } from '#core/void-or-refund';
import { merchantRoute } from '#core/merchants';
import { reversalSeconds, reverseInBackground, wholeGroupInBackground } from '#core/void-or-refund-run';
import { clock } from '#shared/clock';

export const handler = merchantRoute(routes.VoidOrRefundGroup, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID;
  const paymentIds = body?.paymentIds;
  if (paymentIds === undefined) {
    const group = await requireGroup(groupId, merchant.merchantId);
    if (await wholeGroupInBackground(group)) {
      const executionArn = await reverseInBackground(group, now);
      return { status: 202, body: { paymentGroupId: groupId, status: 'accepted', executionArn } };
    }
  }
  // The last reversal starts early enough to end before the function's timeout (at the
  // configured processor's bound: contract/processor.ts).
  const deadline = clock.nowMs() + (VOID_OR_REFUND.apiTimeoutSeconds - reversalSeconds() - 2) * 1000;
  const { group, outcomes } = await voidOrRefundGroup(
    groupId,
    merchant.merchantId,
    paymentIds,
    now,
    deadline,
  );
  const count = (o: Outcome) => outcomes.filter((x) => x.outcome === o).length;
  return {
    status: 200,
    body: {
      paymentGroupId: group.paymentGroupId,
      voidedCount: count('voided'),
      refundedCount: count('refunded'),
      refundScheduledCount: count('refund_scheduled'),
      skippedCount: count('skipped'),
      failedCount: count('failed'),
      payments: outcomes,
    },
  };
});
