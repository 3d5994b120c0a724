/**
 * The daily account updater job (DESIGN section 5, "The card lifecycle"; core/account-updater.ts):
 * its handler, schedule and bounds, read by CDK (lib/cdk/account-updater.ts), the local runtime
 * and `npm run admin -- account-updater`.
 */
export const ACCOUNT_UPDATER_JOB = {
  handler: 'scheduled/apply-account-updates',
  /** cron fields (UTC) of the daily rule: clear of the hourly tick, the series job and reconciliation. */
  schedule: { minute: '40', hour: '1' },
  /** No update is started after this many seconds; one update takes a few writes. */
  budgetSeconds: 600,
  timeoutSeconds: 900,
} as const;
