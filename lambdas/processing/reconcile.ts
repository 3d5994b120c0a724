/**
 * The daily reconciliation (EventBridge rule, lib/cdk/reconciliation.ts): the last day (from the
 * event's time) reconciled against the processor, the sweeper run between the comparisons. The
 * JSON report is logged; its `unhealed` count is the metric the alarm watches (a metric filter on
 * this log line), so an operator is called only for what the sweeper could not heal.
 *
 * `npm run admin -- reconcile --stage …` invokes it too (bin/admin-cloud.ts), with `since` (and
 * `staleMinutes`) of its own: the run then has the stage's settings, not the operator's machine's.
 * The answer is the report.
 */
import { reconcile, type ReconcileReport } from '#core/reconcile';
import { RECONCILIATION } from '#contract/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

const DAY_MS = 24 * 3600_000;

/** An EventBridge event (its `time`), or the operator's invocation (`since`, `staleMinutes`). */
export interface ReconcileEvent {
  time?: string;
  since?: string;
  staleMinutes?: number;
}

/** The window's start an event asks for; a bad one is refused before anything runs. */
export function windowOf(event: ReconcileEvent): { since: string; now: Date; staleMinutes?: number } {
  const now = event.time !== undefined ? new Date(event.time) : clock.now();
  if (Number.isNaN(now.getTime())) throw new Error(`time ${String(event.time)} is not an ISO-8601 time`);
  const since = event.since !== undefined ? new Date(event.since) : new Date(now.getTime() - DAY_MS);
  if (Number.isNaN(since.getTime())) throw new Error(`since ${String(event.since)} is not an ISO-8601 time`);
  const { staleMinutes } = event;
  if (staleMinutes !== undefined && !(Number.isInteger(staleMinutes) && staleMinutes > 0))
    throw new Error(`staleMinutes ${String(staleMinutes)} is not a whole number of minutes above 0`);
  return { since: since.toISOString(), now, ...(staleMinutes !== undefined && { staleMinutes }) };
}

export const handler = taskHandler(async (event: ReconcileEvent): Promise<ReconcileReport> => {
  const report = await reconcile(windowOf(event));
  logger.info(RECONCILIATION.reportMessage, { report, unhealed: report.unhealed, healed: report.healed });
  return report;
});
