/** State machine task CompleteReversal: the run's summary on the group, status done. */
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { showRunSummary } from '#core/void-or-refund-run';
import { summaryOf, type ReversalState } from '#core/void-or-refund-state';

export const handler = taskHandler(async (state: ReversalState): Promise<ReversalState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const written = await showRunSummary(state.paymentGroupId, summaryOf(state, 'done'), state.generation);
  logger.info('void-or-refund done', { counts: state.counts, batches: state.batches, written });
  return state;
});
