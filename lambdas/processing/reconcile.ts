/**
 * The daily reconciliation (EventBridge rule, lib/cdk/reconciliation.ts): the last day (from the
 * event's time) reconciled against the processor, the sweeper run between the comparisons. The
 * JSON report is logged; its `unhealed` count is the metric the alarm watches (a metric filter on
 * this log line), so an operator is called only for what the sweeper could not heal.
 */
import { reconcile, type ReconcileReport } from '#core/reconcile';
import { RECONCILIATION } from '#contract/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

const DAY_MS = 24 * 3600_000;

export const handler = taskHandler(async (event: { time?: string }): Promise<ReconcileReport> => {
  const now = event.time ? new Date(event.time) : new Date();
  const report = await reconcile({ since: new Date(now.getTime() - DAY_MS).toISOString(), now });
  logger.info(RECONCILIATION.reportMessage, { report, unhealed: report.unhealed, healed: report.healed });
  return report;
});
