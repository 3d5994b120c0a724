/**
 * State machine task CompleteGroup: processing → processed, with the outcome summary: the totals
 * of the group's key ranges (the Map's results) summed. The ranges leave the state here, so the
 * settlement wait and the receipts carry the group's totals only, and the ranges' cut points as
 * the receipt ranges (queued at once after the cut-off, issue 25 defect 8: no second count). A
 * retry round's execution ends its round here instead (the group stays processed): every payment
 * was counted as it stands, so the summary is recounted whole, and only the sales approved in the
 * round have receipts to wait for.
 */
import { completeGroup, completeRetryRound } from '#core/processing-run';
import { cutsOf, receiptRangesBetween, sumTotals, type ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export const handler = taskHandler(async (state: ProcessingState): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const ranges = state.ranges ?? [];
  // An execution started on the definition before key ranges (a deploy mid-run) carries them itself.
  const totals = ranges.length > 0 ? sumTotals(ranges.map((r) => r.totals)) : state.totals;
  const batches = ranges.length > 0 ? ranges.reduce((n, r) => n + r.batches, 0) : state.batches;
  const summary = { ...totals, processedAt: clock.now().toISOString() };
  // A retry round (the group processed already): the summary recounted, the next round's slot.
  if (state.retry) await completeRetryRound(state.paymentGroupId, state.retry.round, summary);
  else await completeGroup(state.paymentGroupId, summary);
  logger.info(state.retry ? 'retry round done' : 'group processed', {
    totals,
    batches,
    ranges: ranges.length,
  });
  const receiptRanges = receiptRangesBetween(cutsOf(ranges), state);
  return { ...state, ranges: [], totals, batches, receiptRanges };
});
