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
import {
  listedDifferences,
  reconcile,
  windowOf,
  type ReconcileEvent,
  type ReconcileReport,
} from '#core/reconcile';
import { RECONCILIATION } from '#contract/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

/**
 * Differences the log line lists (the alarm's metric filter parses that line: it must stay one
 * CloudWatch Logs event, 256 KB; a difference is about 300 bytes) and the answer lists (Lambda
 * answers at most 6 MB); unhealed ones first, the counts whole.
 */
const LOGGED_DIFFERENCES = 200;
const ANSWERED_DIFFERENCES = 10_000;

export const handler = taskHandler(async (event: ReconcileEvent): Promise<ReconcileReport> => {
  const report = await reconcile(windowOf(event));
  const logged = listedDifferences(report, LOGGED_DIFFERENCES);
  logger.info(RECONCILIATION.reportMessage, {
    report: logged,
    unhealed: report.unhealed,
    healed: report.healed,
  });
  return listedDifferences(report, ANSWERED_DIFFERENCES);
});
