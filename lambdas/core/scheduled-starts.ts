/**
 * The two scheduled starters of group processing. Both go by their event's `time`, never the wall
 * clock, and begin alike: every pending group of that hour's slot and of earlier
 * slots (one Query per shard of the sparse due index) is claimed and started, and so is the retry
 * round of every processed group waiting in the due index at such a slot (core/retry-rounds.ts).
 * The due index is eventually consistent: each claim also requires the slot the starter saw, so a
 * group rescheduled in between is not processed at its old slot.
 *
 * - The hourly tick (`runHourlyTick`) also supervises the claimed groups still in the due index
 *   (core/processing.ts superviseProcessing): an execution that closed (failed, timed out,
 *   aborted, or ended early) before its group was done is re-driven as the next attempt, and so is
 *   a claim whose execution never started (after a few minutes); it emits how many groups have
 *   been processing longer than an execution may run (the GroupsProcessingTooLong alarm watches
 *   that metric); then it creates the groups of series occurrences due before the next tick (a
 *   daily job that did not run is caught up within the hour).
 * - The due start (`startDueGroups`, every minute) only starts: a group created in, or moved into,
 *   the current UTC hour after that hour's tick must not wait for the next tick (docs/decisions.md,
 *   "The current hour"); a deleted group's round, which cancels its scheduled retries, runs within
 *   a minute. Then it creates the series occurrences already due (those a create request left to
 *   it, cancels a crash left half-done). Cheap when nothing is due: one Query per due-index shard
 *   and one of the series' due index.
 */
import { EXECUTION_TIMEOUT_SECONDS } from '#contract/processing';
import { DUE_START_SERIES_BUDGET_SECONDS, TICK_SERIES_BUDGET_SECONDS } from '#contract/series';
import { currentSlot } from '#domain/groups';
import { stuckGroupsMetricLine } from '#domain/processing';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { clock } from '#shared/clock';
import { logger } from '#shared/logger';
import { emitMetricLine } from '#shared/metrics';
import type { DueGroup } from '#store/due';
import {
  dueGroups,
  needsSupervision,
  startPendingGroups,
  superviseProcessing,
  type StartOutcome,
} from './processing';
import { startDueRetryRounds } from './retry-rounds';
import { createDueOccurrences, type CreationReport } from './series';

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

export interface DueStartResult {
  slot: string;
  /** Pending groups, then retry rounds, started. */
  started: StartOutcome[];
  series: CreationReport;
}

/** A scheduled event's time; a missing or malformed one fails the run (EventBridge retries it). */
export function scheduledTime(time: string | undefined): Date {
  const at = new Date(time as string);
  if (Number.isNaN(at.getTime())) throw new Error(`scheduled event without a valid time: ${String(time)}`);
  return at;
}

/** What both starters do first: the due groups of `time`'s slot and earlier, read. */
async function dueAt(time: Date) {
  const slot = currentSlot(time);
  return { slot, due: await dueGroups(slot), now: clock.now() };
}

/** ...then started: the pending groups, then the retry rounds due by the slot. */
async function startAll(due: DueGroup[], slot: string, now: Date) {
  const started = await startPendingGroups(due, now);
  const retries = await startDueRetryRounds(due, slot, now);
  return { started, retries };
}

const olderThan = (at: string | undefined, ms: number, now: Date) =>
  at !== undefined && now.getTime() - Date.parse(at) > ms;

/** Re-drives each group whose run needs it; one group's failure does not stop the others. */
async function supervise(
  supervised: DueGroup[],
  now: Date,
  superviseAfterMs: number,
): Promise<StartOutcome[]> {
  const outcomes = await mapLimit(supervised, 8, async (group) => {
    try {
      return await superviseProcessing(group, now, superviseAfterMs);
    } catch (error) {
      logger.error('could not supervise a group', { paymentGroupId: group.paymentGroupId, error });
      return { paymentGroupId: group.paymentGroupId, error: (error as Error).message };
    }
  });
  return outcomes.filter((o): o is StartOutcome => o !== undefined);
}

/** The hourly tick at `time` (the EventBridge rule's, or `POST /__local/events/hourly`'s). */
export async function runHourlyTick(time: Date): Promise<TickResult> {
  const { slot, due, now } = await dueAt(time);
  const superviseAfterMs = config().superviseAfterSeconds * 1000;
  // A group waiting for its retry round has no run to supervise: its round is started instead.
  const supervised = due.filter(
    (g) => g.status !== 'pending' && !g.awaitingRetry && needsSupervision(g, now, superviseAfterMs),
  );
  const stuck = due.filter(
    (g) => g.status === 'processing' && olderThan(g.processingSince, EXECUTION_TIMEOUT_SECONDS * 1000, now),
  ).length;
  const { started, retries } = await startAll(due, slot, now);
  const resumed = await supervise(supervised, now, superviseAfterMs);
  // The series' occurrences due before the next tick: a daily job that did not run is caught up
  // here (after the starts, which are this hour's own work). A group of this hour made here is
  // started by the due start within a minute.
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
}

/** The every-minute due start at `time`. */
export async function startDueGroups(time: Date): Promise<DueStartResult> {
  const { slot, due, now } = await dueAt(time);
  const { started: groups, retries } = await startAll(due, slot, now);
  const started = [...groups, ...retries];
  if (started.length > 0) logger.info('due start started groups', { slot, started: started.length });
  const series = await createDueOccurrences({
    horizon: time,
    deadline: clock.nowMs() + DUE_START_SERIES_BUDGET_SECONDS * 1000,
  });
  return { slot, started, series };
}
