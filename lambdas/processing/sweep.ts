/**
 * The scheduled sweeper (EventBridge rule every 5 minutes; locally a timer and
 * `POST /__local/events/sweep`): settles stale Pending sales, Pending refunds, reserved voids and
 * due reversals (core/sweeper.ts), and removes group creates abandoned half-way (a `creating`
 * group older than a few minutes, with its payments and notices: core/groups.ts). Its report is
 * logged and returned.
 */
import { sweepAbandonedCreates } from '#core/groups';
import { STALE_AFTER_SECONDS, sweep, type SweepReport } from '#core/sweeper';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export interface SweepEvent {
  /** The scheduled event's time; the sweep goes by the wall clock when absent. */
  time?: string;
  /** Default STALE_AFTER_SECONDS. */
  olderThanSeconds?: number;
}

export interface SweepResult extends SweepReport {
  /** Ids of the groups whose abandoned create was removed. */
  abandonedCreates: string[];
}

export const handler = taskHandler(async (event: SweepEvent): Promise<SweepResult> => {
  const now = new Date();
  const report = await sweep(now, { olderThanSeconds: event.olderThanSeconds ?? STALE_AFTER_SECONDS });
  if (report.unsettled.length > 0) logger.warn('sweep left work unsettled', { unsettled: report.unsettled });
  const abandonedCreates = await sweepAbandonedCreates(now);
  if (abandonedCreates.length > 0) logger.warn('abandoned group creates removed', { abandonedCreates });
  return { ...report, abandonedCreates };
});
