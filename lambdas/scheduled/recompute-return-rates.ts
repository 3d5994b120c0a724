/**
 * The return-rates job (EventBridge every hour, RETURN_RATES_JOB.schedule; locally
 * `POST /__local/events/return-rates`): recomputes the merchants' Nacha return rates, announces
 * each change of status, and publishes how many merchants are at `alert` or `over` (the metric the
 * stage's `return-rates-attention` alarm watches). Bounded by RETURN_RATES_JOB.budgetSeconds; the
 * next run goes on from the cursor (core/return-rates.ts).
 */
import { RETURN_RATES_JOB } from '#contract/return-rates';
import { runReturnRatesJob, type ReturnRatesJobReport } from '#core/return-rates';
import { attentionMetricLine } from '#domain/return-rates';
import { clock } from '#shared/clock';
import { config } from '#shared/config';
import { emitMetricLine } from '#shared/metrics';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (): Promise<ReturnRatesJobReport> => {
  const now = clock.now();
  const report = await runReturnRatesJob(now, clock.nowMs() + RETURN_RATES_JOB.budgetSeconds * 1000);
  emitMetricLine(attentionMetricLine(report.atAttention, config().stage, now));
  return report;
});
