/**
 * State machine task ReceiptsQueued: after QueueReceipts (the Map over the group's receipt
 * ranges, issue 25 defect 8) every range is done, so every receipt is queued: the group leaves the
 * due index (until then a closed execution is re-driven and queues only the receipts missing).
 * The ranges leave the state here; their counts are summed as `receiptsQueued`.
 */
import type { ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { receiptsQueued as leaveDueIndex } from '#core/processing-run';
import { clock } from '#shared/clock';

export const handler = taskHandler(async (state: ProcessingState): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const ranges = state.receiptRanges ?? [];
  const receiptsQueued = ranges.reduce((n, r) => n + r.receiptsQueued, 0);
  await leaveDueIndex(state.paymentGroupId, clock.now());
  logger.info('receipts all queued', { receiptsQueued, ranges: ranges.length });
  return { ...state, receiptRanges: [], receiptCursor: null, receiptsDone: true, receiptsQueued };
});
