/**
 * The hourly scheduler (EventBridge rule, or `POST /__local/events/hourly` locally). It goes by
 * the event's `time`, never the wall clock: it starts every pending group of that hour's slot
 * and of earlier slots a missed tick left behind (one Query per shard of the sparse due index),
 * then creates the groups of series occurrences due before the next tick (core/series.ts: a daily
 * job that did not run is caught up within the hour).
 * The due index is eventually consistent: each claim also requires the slot the tick saw, so a
 * group rescheduled in between is not processed at its old slot.
 *
 * It also supervises the claimed groups still in the due index (core/processing.ts
 * superviseProcessing): an execution that closed (failed, timed out, aborted, or ended early)
 * before its group was done is re-driven as the next attempt, and so is a claim whose execution
 * never started (after a few minutes); and it emits how many groups have been processing longer
 * than an execution may run (the GroupsProcessingTooLong alarm watches that metric).
 *
 * Retry rounds (core/retry-rounds.ts): every processed group waiting in the due index for a retry
 * round at this slot or an earlier one has its round claimed and started; its execution charges
 * the retries due by this slot.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { EXECUTION_TIMEOUT_SECONDS } from '#contract/processing';
import {
  dueGroups,
  needsSupervision,
  startPendingGroups,
  superviseProcessing,
  type StartOutcome,
} from '#core/processing';
import { TICK_SERIES_BUDGET_SECONDS } from '#contract/series';
import { createDueOccurrences, type CreationReport } from '#core/series';
import { startDueRetryRounds } from '#core/retry-rounds';
import { currentSlot } from '#domain/groups';
import { stuckGroupsMetricLine } from '#domain/processing';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { emitMetricLine } from '#shared/metrics';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export interface TickResult {
  slot: string;
  started: StartOutcome[];
  /** Retry rounds started. */
  retries: StartOutcome[];
  resumed: StartOutcome[];
  /** Groups processing longer than an execution may run. */
  stuck: number;
  /** Series occurrences whose groups fall due before the next tick, created (a missed daily job caught up). */
  series: CreationReport;
}

const olderThan = (at: string | undefined, ms: number, now: Date) =>
  at !== undefined && now.getTime() - Date.parse(at) > ms;

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<TickResult> => {
  const time = new Date(event.time);
  if (Number.isNaN(time.getTime()))
    throw new Error(`scheduled event without a valid time: ${String(event.time)}`);
  const slot = currentSlot(time);
  const due = await dueGroups(slot);
  const now = clock.now();
  const superviseAfterMs = config().superviseAfterSeconds * 1000;
  // A group waiting for its retry round has no run to supervise: its round is started instead.
  const supervised = due.filter(
    (g) => g.status !== 'pending' && !g.awaitingRetry && needsSupervision(g, now, superviseAfterMs),
  );
  const stuck = due.filter(
    (g) => g.status === 'processing' && olderThan(g.processingSince, EXECUTION_TIMEOUT_SECONDS * 1000, now),
  ).length;
  const started = await startPendingGroups(due, now);
  const retries = await startDueRetryRounds(due, slot, now);
  const resumed = (
    await mapLimit(supervised, 8, async (group) => {
      try {
        return await superviseProcessing(group, now, superviseAfterMs);
      } catch (error) {
        logger.error('could not supervise a group', { paymentGroupId: group.paymentGroupId, error });
        return { paymentGroupId: group.paymentGroupId, error: (error as Error).message };
      }
    })
  ).filter((o): o is StartOutcome => o !== undefined);
  // The series' occurrences due before the next tick: a daily job that did not run is caught up
  // here (after the starts, which are this hour's own work). A group of this hour made here is
  // started by the due sweep within a minute.
  const series = await createDueOccurrences({
    horizon: new Date(time.getTime() + 3_600_000),
    deadline: clock.nowMs() + TICK_SERIES_BUDGET_SECONDS * 1000,
  });
  // One EMF line: CloudWatch turns it into the metric the stuck-groups alarm watches.
  emitMetricLine(stuckGroupsMetricLine(stuck, config().stage, now));
  if (stuck > 0) logger.error('groups processing longer than an execution may run', { stuck });
  logger.info('hourly tick', {
    slot,
    due: due.length,
    started: started.length,
    retries: retries.length,
    resumed: resumed.length,
  });
  return { slot, started, retries, resumed, stuck, series };
});
