/**
 * What an execution of the processing state machine (statemachines/process-group.asl.json) does to
 * its claimed group around the batches (core/batches.ts), for the task handlers in
 * lambdas/process-group/: the claim read and the key ranges (BeginGroup, `beginGroup`), the summary
 * (CompleteGroup, `completeRun`) and the receipts (EmitReceipts, ReceiptsQueued). Nothing here calls the processor.
 */
import type { Group } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { effectivePolicy, type RetryPolicy } from '#domain/retries';
import {
  cutsOf,
  emptyTotals,
  MAX_FAN_OUT,
  rangePlan,
  rangesBetween,
  receiptRangesBetween,
  sumTotals,
  type BatchState,
  type ProcessingState,
  type ProcessingSummary,
  type ProcessingTotals,
} from '#domain/processing';
import { config } from '#shared/config';
import { clock } from '#shared/clock';
import { logger } from '#shared/logger';
import { claimStore, type ClaimedGroup } from '#store/claims';
import { outboxStore } from '#store/outbox';
import { paymentRangeStore } from '#store/payment-ranges';
import { retryRoundStore } from '#store/retry-rounds';
import { settingsStore } from '#store/settings';

/** The group as its claim stands, read consistently. */
const claimedGroup = (groupId: string): Promise<ClaimedGroup | undefined> => claimStore().read(groupId);

/**
 * A claimed group's key ranges (store/payment-ranges.ts), one per batch up to PROCESS_FAN_OUT (one
 * when the group is a batch or less: no query), and how many the state machine's Map runs at once.
 */
async function cutIntoRanges(
  base: Pick<BatchState, 'paymentGroupId' | 'merchantId' | 'allowPartial' | 'retryPolicy' | 'retry'>,
  count: number,
) {
  const { processBatchSize, processFanOut } = config();
  const plan = rangePlan(count, processBatchSize, processFanOut);
  const cuts =
    plan.ranges > 1
      ? await paymentRangeStore().cutPoints(base.paymentGroupId, plan.size, plan.ranges - 1)
      : [];
  const ranges = rangesBetween(cuts, base);
  logger.info('group cut into key ranges', { payments: count, ranges: ranges.length, size: plan.size });
  return { ranges, fanOut: Math.min(processFanOut, MAX_FAN_OUT) };
}

/** The retry policy a group's payments follow now: its own, else the merchant's settings, else none. */
export async function groupRetryPolicy(
  group: Pick<Group, 'merchantId' | 'retryPolicy'>,
): Promise<RetryPolicy> {
  if (group.retryPolicy) return group.retryPolicy;
  return effectivePolicy(undefined, (await settingsStore().get(group.merchantId)).retryPolicy);
}

/**
 * A retry round's charges are done: the group's recounted summary (announced by `group.updated`)
 * and its next round's slot (docs/architecture.md#retry-rounds).
 */
const completeRetryRound = (groupId: string, round: number, summary: ProcessingSummary): Promise<void> =>
  retryRoundStore().complete(groupId, round, summary);

/** processing → processed, with the outcome summary, announced by `group.processed` (once). */
export const completeGroup = (groupId: string, summary: ProcessingSummary): Promise<void> =>
  claimStore().complete(groupId, summary);

/** Writes a receipt's outbox item unless one with its id exists (false then); the notifier sends it. */
export const queueReceipt = (item: OutboxItem): Promise<boolean> => outboxStore().putOnce(item);

/** Up to `limit` payments of a group after `cursor`, up to `upTo` (a range's end; null: the group's). */
export const paymentsInRange = (groupId: string, cursor: string | null, upTo: string | null, limit: number) =>
  paymentRangeStore().paymentsIn(groupId, cursor, upTo, limit);

/** Every receipt of the group is queued: it leaves the due index (until then a closed execution is re-driven). */
export const receiptsQueued = (groupId: string, at: Date): Promise<void> =>
  claimStore().receiptsQueued(groupId, at.toISOString());

/** The group still reads as pending: the state machine retries BeginGroup (its error name). */
class ClaimNotVisibleError extends Error {
  override readonly name = 'ClaimNotVisible';
}

export interface BeginInput {
  paymentGroupId: string;
  merchantId: string;
  /** The attempt's execution name (executions started before attempts had names have none). */
  executionName?: string;
}

/**
 * BeginGroup: continue only with a group claimed for this execution's attempt.
 *
 * The group is read consistently. A group still `pending` means the claim that started this
 * execution is not visible (yet): it throws ClaimNotVisible and the state machine retries the
 * task, rather than ending the run as if there were nothing to do. A processed group whose
 * receipts are not queued yet (its previous attempt closed after CompleteGroup) continues with the
 * receipts only.
 *
 * A claimed group is cut into key ranges, one per batch up to PROCESS_FAN_OUT, that the state
 * machine's Map processes at once, each with its own cursor and totals: a group's throughput is
 * fan-out × PROCESS_CONCURRENCY charges in flight, not one batch's. A receipts-only re-drive is
 * cut the same way into the receipt ranges its Map queues at once.
 *
 * A retry round (docs/architecture.md#retry-rounds) is claimed on a processed (or deleted) group
 * with `retryBound`: the run goes through the same ranges, its batches charging only the retries
 * due by that bound. Each run takes the group's retry policy as it is now (its own, else the
 * merchant's settings).
 */
export async function beginGroup(input: BeginInput): Promise<ProcessingState> {
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
}

function totalsOf(summary: ProcessingSummary): ProcessingTotals {
  const { processedAt: _processedAt, ...totals } = summary;
  return totals;
}

/**
 * CompleteGroup: processing → processed, with the outcome summary: the totals of the group's key
 * ranges (the Map's results) summed. The ranges leave the state here, so the settlement wait and
 * the receipts carry the group's totals only, and the ranges' cut points as the receipt ranges
 * (queued at once after the cut-off: no second count). A retry round's execution ends its round
 * here instead (the group stays processed): every payment was counted as it stands, so the summary
 * is recounted whole, and only the sales approved in the round have receipts to wait for.
 */
export async function completeRun(state: ProcessingState): Promise<ProcessingState> {
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
}
