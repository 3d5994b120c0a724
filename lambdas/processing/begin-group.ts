/**
 * State machine task BeginGroup: continue only with a group claimed for this execution's attempt.
 *
 * The group is read consistently. A group still `pending` means the claim that started this
 * execution is not visible (yet): the task fails and the state machine retries it, rather than
 * ending the run as if there were nothing to do. A processed group whose receipts are not queued
 * yet (its previous attempt closed after CompleteGroup) continues with the receipts only.
 *
 * A claimed group is cut into key ranges (core/processing-run.ts), one per batch up to
 * PROCESS_FAN_OUT, that the state machine's Map processes at once, each with its own cursor and
 * totals: a group's throughput is fan-out × PROCESS_CONCURRENCY charges in flight, not one batch's.
 * A receipts-only re-drive is cut the same way into the receipt ranges its Map queues at once.
 *
 * A retry round (docs/architecture.md#retry-rounds) is claimed on a processed (or deleted) group
 * with `retryBound`: the run goes through the same ranges, its batches charging only the retries
 * due by that bound. Each run takes the group's retry policy as it is now (its own, else the
 * merchant's settings).
 */
import { claimedGroup, cutIntoRanges, groupRetryPolicy } from '#core/processing-run';
import {
  cutsOf,
  emptyTotals,
  receiptRangesBetween,
  type ProcessingState,
  type ProcessingSummary,
  type ProcessingTotals,
} from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export class ClaimNotVisibleError extends Error {
  override readonly name = 'ClaimNotVisible';
}

export interface BeginInput {
  paymentGroupId: string;
  merchantId: string;
  /** The attempt's execution name (executions started before attempts had names have none). */
  executionName?: string;
}

export const handler = taskHandler(async (input: BeginInput): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: input.paymentGroupId, merchantId: input.merchantId });
  const group = await claimedGroup(input.paymentGroupId);
  const ours =
    group !== undefined &&
    group.merchantId === input.merchantId &&
    group.executionName !== undefined &&
    group.executionName === input.executionName;
  if (group?.status === 'pending' && group.merchantId === input.merchantId)
    throw new ClaimNotVisibleError('the group reads as pending: the claim is not visible yet');
  const retrying =
    ours &&
    (group.status === 'processed' || group.status === 'deleted') &&
    group.retryBound !== undefined &&
    group.retryRound !== undefined;
  const claimed = (ours && group.status === 'processing') || retrying;
  const receiptsOnly =
    ours && group.status === 'processed' && group.due && !retrying && group.awaitingRetry !== true;
  if (!claimed && !receiptsOnly)
    logger.info('group not claimed for this execution: nothing to do', { status: group?.status });
  const base = {
    paymentGroupId: input.paymentGroupId,
    merchantId: input.merchantId,
    allowPartial: group?.allowPartial ?? false,
    ...(claimed && { retryPolicy: await groupRetryPolicy(group) }),
    ...(retrying && {
      retry: {
        round: group.retryRound!,
        bound: group.retryBound!,
        groupDeleted: group.status === 'deleted',
        startedAt: group.retryRoundAt ?? group.claimedAt ?? clock.now().toISOString(),
      },
    }),
  };
  if (retrying) logger.info('retry round', { round: group.retryRound, bound: group.retryBound });
  const { ranges, fanOut } =
    claimed || receiptsOnly ? await cutIntoRanges(base, group.paymentCount) : { ranges: [], fanOut: 1 };
  return {
    ...base,
    claimed,
    receiptsOnly,
    ranges: claimed ? ranges : [],
    fanOut,
    // Processing's ranges become the receipt ranges at CompleteGroup; a receipts-only run has them now.
    receiptRanges: receiptsOnly ? receiptRangesBetween(cutsOf(ranges), base) : [],
    cursor: null,
    totals: receiptsOnly && group.processingSummary ? totalsOf(group.processingSummary) : emptyTotals(),
    batches: 0,
    receiptCursor: null,
    receiptsDone: false,
  };
});

function totalsOf(summary: ProcessingSummary): ProcessingTotals {
  const { processedAt: _processedAt, ...totals } = summary;
  return totals;
}
