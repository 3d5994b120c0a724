import { merchantRoute } from '#shared/http';
import {
  explainGroupRejection,
  groupStore,
  MAX_ATTEMPTS,
  requirePayment,
  tooMuchContention,
} from '#store/groups';

/**
 * DELETE .../groups/{GroupID}/payments/{PaymentID} (alias .../transactions/...): soft delete;
 * the payment stays listed with deleted=true and is never processed. Repeating it is a no-op.
 */
export const handler = merchantRoute({}, async ({ merchant, params, now }) => {
  const groupId = params.GroupID!;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const previous = await requirePayment(groupId, params.PaymentID!, merchant.merchantId);
    if (previous.deleted) return { status: 204 };
    const outcome = await groupStore().softDeletePayment(previous, now);
    if (outcome === 'ok') return { status: 204 };
    if (outcome === 'group-not-editable') await explainGroupRejection(groupId, merchant.merchantId);
  }
  return tooMuchContention();
});
