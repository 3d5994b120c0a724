/**
 * State machine task CompleteGroup: processing → processed with the summary of its ranges' totals,
 * or a retry round's end (core/processing-run.ts `completeRun`).
 */
import { completeRun } from '#core/processing-run';
import type { ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (state: ProcessingState): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  return completeRun(state);
});
