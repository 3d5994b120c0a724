/**
 * The scheduled sweeper (EventBridge rule every 5 minutes; locally a timer and
 * `POST /__local/events/sweep`): settles stale Pending sales, Pending refunds, reserved voids and
 * due reversals (core/sweeper.ts). Its report is logged and returned.
 */
import { STALE_AFTER_SECONDS, sweep, type SweepReport } from '#core/sweeper';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export interface SweepEvent {
  /** The scheduled event's time; the sweep goes by the wall clock when absent. */
  time?: string;
  /** Default STALE_AFTER_SECONDS. */
  olderThanSeconds?: number;
}

export const handler = taskHandler(async (event: SweepEvent): Promise<SweepReport> => {
  const report = await sweep(new Date(), {
    olderThanSeconds: event.olderThanSeconds ?? STALE_AFTER_SECONDS,
  });
  if (report.unsettled.length > 0) logger.warn('sweep left work unsettled', { unsettled: report.unsettled });
  return report;
});
