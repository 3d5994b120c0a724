/** State machine task CompleteReversal: the run's summary on the group, status done. */
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { groupStore } from '#store/groups';
import { summaryOf, type ReversalState } from '#core/void-or-refund-state';

export const handler = taskHandler(async (state: ReversalState): Promise<ReversalState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const written = await groupStore().putVoidOrRefundSummary(
    state.paymentGroupId,
    summaryOf(state, 'done'),
    state.generation,
  );
  logger.info('void-or-refund done', { counts: state.counts, batches: state.batches, written });
  return state;
});
