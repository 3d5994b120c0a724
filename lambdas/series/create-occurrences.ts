/**
 * The daily series job (EventBridge once a day, SERIES_JOB.schedule; locally a timer and
 * `POST /__local/events/daily`): creates the group of every series occurrence due to be created
 * before the next daily run (the event's time + SERIES_JOB.horizonHours), so that each group
 * exists `noticeDays` days (up to a day more) before its slot; finishes cancels a crash left
 * half-done; skips occurrences whose slot has passed. It goes by the event's time, never the wall
 * clock. Bounded (no group started after SERIES_JOB.budgetSeconds) and resumable: what it leaves,
 * the next run (or the hourly tick, for what falls due within its hour) finds in the due index.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { SERIES_JOB } from '#contract/series';
import { createDueOccurrences, type CreationReport } from '#core/series';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<CreationReport> => {
  const time = new Date(event.time);
  if (Number.isNaN(time.getTime()))
    throw new Error(`scheduled event without a valid time: ${String(event.time)}`);
  return createDueOccurrences({
    horizon: new Date(time.getTime() + SERIES_JOB.horizonHours * 3_600_000),
    deadline: clock.nowMs() + SERIES_JOB.budgetSeconds * 1000,
  });
});
