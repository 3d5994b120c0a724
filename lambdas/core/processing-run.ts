/**
 * What an execution of the processing state machine (statemachines/process-group.asl.json) does to
 * its claimed group around the batches (core/batches.ts), for the task handlers in
 * lambdas/processing/: the claim read and the key ranges (BeginGroup), the summary
 * (CompleteGroup) and the receipts (EmitReceipts, ReceiptsQueued). Nothing here calls the processor.
 */
import type { Group } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { effectivePolicy, type RetryPolicy } from '#domain/retries';
import {
  MAX_FAN_OUT,
  rangePlan,
  rangesBetween,
  type BatchState,
  type ProcessingSummary,
} from '#domain/processing';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { claimStore, type ClaimedGroup } from '#store/claims';
import { outboxStore } from '#store/outbox';
import { paymentRangeStore } from '#store/payment-ranges';
import { retryRoundStore } from '#store/retry-rounds';
import { settingsStore } from '#store/settings';

/** The group as its claim stands, read consistently. */
export const claimedGroup = (groupId: string): Promise<ClaimedGroup | undefined> =>
  claimStore().read(groupId);

/**
 * A claimed group's key ranges (store/payment-ranges.ts), one per batch up to PROCESS_FAN_OUT (one
 * when the group is a batch or less: no query), and how many the state machine's Map runs at once.
 */
export async function cutIntoRanges(
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
export const completeRetryRound = (
  groupId: string,
  round: number,
  summary: ProcessingSummary,
): Promise<void> => retryRoundStore().complete(groupId, round, summary);

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
