/**
 * State machine task AuthorizeFirstBatch: a group's first batch (PROCESS_FIRST_BATCH_SIZE
 * payments, in the processor rate's first lane: core/processor-rate.ts). The same task as
 * AuthorizeBatch (core/batches.ts authorizeBatch), in its own function: its reserved concurrency
 * (contract/processing.ts PROCESSING_CONCURRENCY) is only first batches', so that every group of a
 * busy slot gets its first answers within minutes, however many large groups' batches hold
 * AuthorizeBatch's.
 */
import { authorizeBatch } from '#core/batches';
import type { BatchState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (state: BatchState): Promise<BatchState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  return authorizeBatch(state);
});
