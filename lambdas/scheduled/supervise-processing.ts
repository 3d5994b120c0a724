/**
 * The hourly tick (EventBridge rule, or `POST /__local/events/hourly` locally), at its event's
 * `time`: starts the due groups and retry rounds of that hour and earlier ones, supervises the
 * claimed groups, and creates the series occurrences due before the next tick
 * (core/scheduled-starts.ts `runHourlyTick`).
 */
import type { ScheduledEvent } from 'aws-lambda';
import { runHourlyTick, scheduledTime, type TickResult } from '#core/scheduled-starts';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<TickResult> =>
  runHourlyTick(scheduledTime(event.time)),
);
