/**
 * Series (docs/decisions.md "Series"): recurring groups in the merchant's own time zone. The
 * numbers and names the functions, the local runtime, the infrastructure and the document agree on.
 */

/** Occurrences a series may have: `count`, or those on or before `endDate`. */
export const MAX_SERIES_OCCURRENCES = 120;

/**
 * A series starts at most this many years ahead: startDate is at most today's date in its zone plus
 * 5 years. With at most 120 occurrences every 12 months, its last occurrence falls within 125
 * years, so every date the API writes of it is a four-digit yyyy-MM-dd.
 */
export const MAX_SERIES_START_YEARS = 5;

/** Largest `interval` (every 12 weeks, or every 12 months). */
export const MAX_SERIES_INTERVAL = 12;

/** `noticeDays`: an occurrence's group is created this many days before its slot. */
export const MAX_NOTICE_DAYS = 30;
export const DEFAULT_NOTICE_DAYS = 3;

/**
 * A series' payments as one series' answer shows them: a page of `defaultSize` (at most
 * MAX_PAGE_SIZE) from a position, cut short when they would pass `maxBytes` as the proxy result
 * carries them (the JSON escaped once more). The largest payment the contract allows takes about
 * 240 KB there, so a page always holds one, and an answer stays inside Lambda's 6 MB and API
 * Gateway's 10 MB at the largest series (10,000 payments).
 */
export const SERIES_PAYMENTS_PAGE = { defaultSize: 100, maxBytes: 4 * 1024 * 1024 } as const;

/** How many of the next occurrences a series shows (`nextOccurrences`). */
export const NEXT_OCCURRENCES_SHOWN = 3;

/**
 * The daily job that creates the groups of the occurrences whose turn comes before its next run
 * (EventBridge, every day at DAILY_SCHEDULE UTC; locally a timer and `POST /__local/events/daily`).
 */
export const SERIES_JOB = {
  handler: 'scheduled/create-series-occurrences',
  /** cron fields (UTC) of the daily rule: clear of the hourly tick at :00 and of reconciliation at 02:15. */
  schedule: { minute: '20', hour: '0' },
  /** How far ahead of the run an occurrence's creation time may lie (until the next daily run). */
  horizonHours: 24,
  /**
   * No occurrence's creation is started after this many seconds; one creation (at most 10,000
   * payments: about 15 s) finishes well within the function's timeout.
   */
  budgetSeconds: 600,
  timeoutSeconds: 900,
} as const;

/**
 * The hourly tick creates the occurrences due before its next run (a missed daily run caught up),
 * and the every-minute due start those already due (an occurrence the create request left to it,
 * a cancel a crash left half-done): each with a time budget of its own (seconds).
 */
export const TICK_SERIES_BUDGET_SECONDS = 60;
export const DUE_START_SERIES_BUDGET_SECONDS = 20;
