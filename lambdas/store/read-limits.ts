import { MAX_FILTERED_PAGE_READ, SETTLE_NOW_READ } from '#contract/limits';

/**
 * How many items each bounded read of the table takes, and why: one place, so that what a read
 * costs is chosen here and the reads are seen side by side. A limit is a DynamoDB `Limit` (items
 * evaluated by one request, before any filter) or the most a read gathers over its pages; DynamoDB
 * also stops a request at 1 MB, which store/paging.ts reads past.
 *
 * Not here: the API's page sizes (the contract's, contract/limits.ts), and the sizes an operator
 * configures (batches, receipts pages: shared/config.ts).
 */
export const READ_LIMITS = {
  /**
   * Numbered pages (store/paging.ts readPage): the smallest Limit of one read, as tiny pages would
   * cost a round trip per item.
   */
  pageMin: 25,
  /**
   * Numbered pages: the largest Limit of one read. A page far past the end (pageNumber × pageSize
   * in the billions) must not ask DynamoDB for a Limit it refuses (it takes a 32-bit integer).
   */
  pageMax: 10_000,
  /**
   * A filtered page of events or webhook deliveries: items evaluated per request while filling it.
   * A filter can leave whole reads empty; larger reads fill the page in fewer round trips, smaller
   * ones read less past the page.
   */
  filteredPage: 500,
  /** A filtered page of events or deliveries: the most items one page reads (the contract's, documented). */
  filteredRead: MAX_FILTERED_PAGE_READ,
  /**
   * Expiring cards (`?expiringBefore=`): index entries per request while collecting a page of
   * distinct payors (a payor may have several cards in the range).
   */
  expiringEntries: 200,
  /** The methods one processor token names (the account updater): one in practice; a bound on copies. */
  methodsOfToken: 10,
  /**
   * A method's pending uses read at once while it is deleted or its payments moved: a method with
   * more is worked through in rounds.
   */
  methodUses: 500,
  /** Method deletions left unfinished that one sweep takes up (the rest, the next sweep). */
  staleDeletions: 100,
  /**
   * The most Pending work (sales, refunds, reserved voids) one sweep reads: a backlog (a processor
   * outage of an hour) is worked through over successive sweeps, each bounded. Normal work (tens of
   * ms an item, 8 at a time) clears this in well under a minute.
   */
  sweepWork: 2_000,
  /** Series read from the due index per run of the creation job: far more than one run's budget creates. */
  seriesDue: 1_000,
  /**
   * The test clock's settle-now (non-production): day-index entries one call evaluates (every
   * merchant's sales of the window are on it). A busier window is read over several calls, each
   * going on where the last stopped (the contract's, in its `more`): some 10 MB of reads, well
   * inside the API function's 10 s.
   */
  settleNowRead: SETTLE_NOW_READ,
  /** Webhook deliveries the webhook sweep re-enqueues per due shard and run. */
  webhookSweep: 1_000,
  /** Events read per replay message of a webhook replay; the next page is the next message. */
  webhookReplay: 100,
} as const;
