/**
 * The scheduled sweeper (EventBridge rule every 5 minutes; locally a timer and
 * `POST /__local/events/sweep`): settles stale work of every kind within a bounded run
 * (core/stale-work.ts). Its report is logged there and returned.
 */
import { settleStaleWork, type SweepEvent, type SweepResult } from '#core/stale-work';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (event: SweepEvent): Promise<SweepResult> => settleStaleWork(event));
