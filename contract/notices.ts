/**
 * The notices backstop job (DESIGN section 6, "Notices"; core/notice-backstop.ts): its handler,
 * schedule and bounds, read by CDK (lib/cdk/notice-backstop.ts) and the local runtime.
 */
export const NOTICE_BACKSTOP_JOB = {
  handler: 'scheduled/receive-notices',
  /** Every minute in the cloud: the sandbox's notices come only this way; a real processor's
   * webhooks come first, and this finds what they lost. */
  intervalMinutes: 1,
  /** Locally (LOCAL_NOTICES_TIMER on): seconds between runs, so a notice lands within seconds. */
  localIntervalSeconds: 5,
  /** No page is listed, and no held notice or follow-up started, after this many seconds. */
  budgetSeconds: 40,
  timeoutSeconds: 55,
  /** Notices listed a page at a time; held notices and follow-ups taken a batch at a time. */
  pageSize: 100,
} as const;
