import type { ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { claimStore } from '#store/claims';

/** State machine task CompleteGroup: processing → processed, with the outcome summary. */
export const handler = taskHandler(async (state: ProcessingState): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  await claimStore().complete(state.paymentGroupId, {
    ...state.totals,
    processedAt: new Date().toISOString(),
  });
  logger.info('group processed', { totals: state.totals, batches: state.batches });
  return state;
});
