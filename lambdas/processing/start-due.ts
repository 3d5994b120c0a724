/**
 * The due sweep (EventBridge every minute; locally a timer): starts every pending group of the
 * event's slot and earlier ones, through the same claim as the hourly tick (which also supervises
 * claimed groups; this one only starts). Why: a group created in, or moved into, the current UTC
 * hour after that hour's tick must not wait for the next tick (docs/decisions.md, "The current
 * hour"). It starts the retry rounds due by then too (core/retry-rounds.ts): a deleted group's
 * round, which cancels its scheduled retries, runs within a minute. Cheap when nothing is due: one
 * Query per due-index shard. It also creates the series occurrences already due (core/series.ts).
 */
import type { ScheduledEvent } from 'aws-lambda';
import { DUE_SWEEP_SERIES_BUDGET_SECONDS } from '#contract/series';
import { dueGroups, startPendingGroups, type StartOutcome } from '#core/processing';
import { createDueOccurrences, type CreationReport } from '#core/series';
import { startDueRetryRounds } from '#core/retry-rounds';
import { currentSlot } from '#domain/groups';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export const handler = taskHandler(
  async (
    event: Pick<ScheduledEvent, 'time'>,
  ): Promise<{ slot: string; started: StartOutcome[]; series: CreationReport }> => {
    const time = new Date(event.time);
    if (Number.isNaN(time.getTime()))
      throw new Error(`scheduled event without a valid time: ${String(event.time)}`);
    const slot = currentSlot(time);
    const due = await dueGroups(slot);
    const now = clock.now();
    const started = [...(await startPendingGroups(due, now)), ...(await startDueRetryRounds(due, slot, now))];
    if (started.length > 0) logger.info('due sweep started groups', { slot, started: started.length });
    // Series occurrences already due: those a create request left (its budget), cancels a crash
    // left half-done. Cheap when there are none: one Query of the series' due index.
    const series = await createDueOccurrences({
      horizon: time,
      deadline: clock.nowMs() + DUE_SWEEP_SERIES_BUDGET_SECONDS * 1000,
    });
    return { slot, started, series };
  },
);
