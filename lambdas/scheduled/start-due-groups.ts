/**
 * The due start (EventBridge every minute; locally a timer), at its event's `time`: starts the
 * pending groups and retry rounds of that hour and earlier ones, through the same claim as the
 * hourly tick (which also supervises; this one only starts), and creates the series occurrences
 * already due (core/scheduled-starts.ts `startDueGroups`).
 */
import type { ScheduledEvent } from 'aws-lambda';
import { scheduledTime, startDueGroups, type DueStartResult } from '#core/scheduled-starts';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<DueStartResult> =>
  startDueGroups(scheduledTime(event.time)),
);
