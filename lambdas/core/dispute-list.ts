/** The merchant's disputes (docs/product.md#disputes; store/disputes.ts): the list and one dispute. */
import type { DisputePage, DisputeView, ListDisputesQuery } from '#contract/schemas/disputes';
import { disputeView } from '#domain/disputes';
import { NotFoundError } from '#shared/errors';
import { disputeStore } from '#store/disputes';
import { tokenPage } from './returns';

/**
 * GET .../disputes: the merchant's disputes, newest first, paged with tokens; a token is of one
 * list (this merchant's, with this status filter).
 */
export const listDisputes = (merchantId: string, q: ListDisputesQuery): Promise<DisputePage> =>
  tokenPage(`disputes\n${merchantId}\n${q.status ?? ''}`, q, (pageSize, after) =>
    disputeStore().page(merchantId, pageSize, {
      ...(after !== undefined && { after }),
      ...(q.status !== undefined && { status: q.status }),
    }),
  );

/** GET .../disputes/{disputeId}: the dispute as it is now (404: unknown, or another merchant's). */
export async function getDispute(merchantId: string, disputeId: string): Promise<DisputeView> {
  const dispute = await disputeStore().get(disputeId, merchantId);
  if (!dispute) throw new NotFoundError(`dispute ${disputeId} not found`);
  return disputeView(dispute);
}
