/**
 * The return-rates job (core/return-rates.ts): its handler, schedule, bounds and the metric its
 * alarm watches, read by CDK (lib/cdk/return-rates.ts), the local runtime and the functions.
 */
export const RETURN_RATES_JOB = {
  handler: 'scheduled/recompute-return-rates',
  /**
   * cron fields (UTC): every hour at :25, clear of the hourly tick. Each merchant is recomputed
   * once a UTC day (its debits of the 61st day back leave the window at midnight), and those whose
   * counts a return moved at the next run.
   */
  schedule: { minute: '25', hour: '*' },
  /** No merchant is started after this many seconds; the next run goes on from the cursor. */
  budgetSeconds: 240,
  timeoutSeconds: 300,
} as const;

/**
 * The count of merchants whose return rates are at `alert` or `over`, which each run publishes
 * (Embedded Metric Format) and the stage's `return-rates-attention` alarm watches.
 */
export const RETURN_RATES_METRIC = {
  namespace: 'ScheduledPayments',
  name: 'MerchantsAtReturnRateAlert',
  dimension: 'Stage',
} as const;
