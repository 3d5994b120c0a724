/**
 * POST /rest/merchants/{MID}/groups/{GroupID}/void-or-refund, optional `{paymentIds: [...]}`:
 * reverses the group's approved payments (core/void-or-refund.ts) and counts the outcomes.
 */
import { voidOrRefundGroup, type Outcome } from '#core/void-or-refund';
import { routes } from '#contract/routes/index';
import { merchantRoute } from '#shared/http';

export const handler = merchantRoute(routes.VoidOrRefundGroup, async ({ merchant, params, body, now }) => {
  const groupId = params.GroupID;
  const { group, outcomes } = await voidOrRefundGroup(groupId, merchant.merchantId, body?.paymentIds, now);
  const count = (o: Outcome) => outcomes.filter((x) => x.outcome === o).length;
  return {
    status: 200,
    body: {
      paymentGroupId: group.paymentGroupId,
      voidedCount: count('voided'),
      refundedCount: count('refunded'),
      skippedCount: count('skipped'),
      failedCount: count('failed'),
      payments: outcomes,
    },
  };
});
