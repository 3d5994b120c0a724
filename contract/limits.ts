/**
 * The service's numeric limits, in one place: the request schemas, the handlers and the OpenAPI
 * document all read them from here (docs/ explains the reasoning behind each).
 */
import { VOID_OR_REFUND } from './processing';

/**
 * A group's size limit: one execution processes it within Step Functions' 25,000 history events
 * (about 0.05 events per payment) and its list stays pageable.
 */
export const MAX_PAYMENTS_PER_GROUP = 100_000;

/**
 * Payments a group-create request may carry. A payment item is ~0.5 KB (1 write unit) and all of
 * a group's payments share one partition key, whose write rate is ~1,000 units/s: 10,000 payments
 * take ~10 s of writes (~16 s with a 6 MB body of large customAttributes), inside
 * CREATE_GROUP_TIMEOUT_SECONDS (docs/decisions.md "Big creates fit the API's 29 s").
 */
export const MAX_PAYMENTS_PER_CREATE = 10_000;

/**
 * The group-create function's timeout: under API Gateway's 29 s integration timeout, so that the
 * function (not the gateway) ends a create, and above its writes' budget (BATCH_WRITE_BUDGET_MS).
 */
export const CREATE_GROUP_TIMEOUT_SECONDS = 27;

/** Largest pageSize of every list, groups and payments (above: 400). */
export const MAX_PAGE_SIZE = 500;
/**
 * Largest pageNumber of every list, groups and payments (above: 400): pageNumber × pageSize stays
 * below 2^31−1, the offset arithmetic's bound; 5×10^8 groups is past any merchant's list, and a
 * group's 100,000 payments end by page 100,000 even at pageSize 1.
 */
export const MAX_PAGE_NUMBER = 1_000_000;
/** pageSize when only pageNumber is given. */
export const DEFAULT_PAGE_SIZE = 25;

/**
 * A filtered page of events (`type`, `objectId`) or of an endpoint's deliveries (`status`) reads
 * at most this many items, then ends short with a token to read on: a rare object's events among a
 * busy merchant's would otherwise be read in one request past API Gateway's 29 s.
 */
export const MAX_FILTERED_PAGE_READ = 2_000;

/** A group's payments come as one array up to this many (deleted included); above, only paged. */
export const MAX_UNPAGED_PAYMENTS = 2_000;

/**
 * A merchant's groups (or series) come as one array up to this many (filters applied); above,
 * only paged: the read stops one past it, so that a request reads a bounded number of items.
 */
export const MAX_UNPAGED_GROUPS = 5_000;

/**
 * Lambda's limit on a synchronous response (the API Gateway proxy result, its JSON-escaped body
 * included) is 6 MB; a list answer keeps 64 KiB of it for the status line, headers and envelope.
 */
export const MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 64 * 1024;

/** Saved payment methods a payor may hold. */
export const MAX_METHODS_PER_PAYOR = 20;
/** Payors one answer of `GET .../payors?expiringBefore=` lists at most (the next page by its Link). */
export const EXPIRING_PAGE_PAYORS = 100;

/** MIDs the non-production process-payments triggers accept: 11 digits within this range. */
export const TEST_MID_RANGE = { from: 32350000000, to: 32350099999 } as const;

/**
 * A retry policy's bounds (DESIGN section 5, "Retrying declined scheduled payments"): at most 4
 * retries, 24 to 240 hours apart; a policy without intervalHours waits 24 hours. The default (no
 * policy on the group nor the merchant) is no retries.
 */
export const RETRY_POLICY = {
  maxRetries: { min: 0, max: 4 },
  intervalHours: { min: 24, max: 240, default: 24 },
} as const;

/**
 * Rows of one page of a group report (CSV or .xlsx) at most: 100,000 payments take 20 pages. A
 * page of typical rows is about 0.75 MB as CSV and 0.45 MB as a workbook in base64
 * (docs/decisions.md "Group report CSV in pages").
 */
export const REPORT_PAGE_ROWS = 5_000;

/**
 * A report page's body as the proxy result carries it (CSV JSON-escaped, a workbook in base64)
 * is at most this: a page of rows whose text is the largest allowed (a 100-character orderId of
 * quotes is about 400 bytes of CSV once escaped) holds fewer rows, and the next page goes on
 * from there. Lambda answers at most 6 MB, API Gateway 10 MB.
 */
export const REPORT_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * Characters of a processor's message a report row keeps: the service does not bound what a
 * processor answers, and a row must stay small (a page holds at least one row).
 */
export const REPORT_MESSAGE_CHARS = 200;

/**
 * The group-report function's timeout: under API Gateway's 29 s, above the JSON report's read
 * budget (core/reports.ts REPORT_JSON_BUDGET_MS, 20 s) with room for the answer.
 */
export const GROUP_REPORT_TIMEOUT_SECONDS = 27;

/** Every other API function's timeout: a request reads or writes a bounded few items. */
export const API_FUNCTION_TIMEOUT_SECONDS = 10;

/** The group-create function: its own timeout (CREATE_GROUP_TIMEOUT_SECONDS). */
export const CREATE_GROUP_HANDLER = 'groups/create-group';
/** The group-report function: its own timeout (GROUP_REPORT_TIMEOUT_SECONDS). */
export const GROUP_REPORT_HANDLER = 'groups/group-report';

/**
 * The functions that may create groups of up to 10,000 payments within the request, and so take
 * the group create's timeout (CREATE_GROUP_TIMEOUT_SECONDS): group create, and the series create
 * and update (the groups of occurrences already due).
 */
export const LONG_CREATE_HANDLERS: readonly string[] = [
  CREATE_GROUP_HANDLER,
  'series/create-series',
  'series/update-series',
];

/**
 * An API handler's function timeout, in seconds: the deployed function's (lib/cdk/api.ts) and the
 * local gateway's (lib/local/http-server.ts) alike, so that a request runs as long here as there.
 */
export function apiTimeoutSecondsOf(handler: string): number {
  if (LONG_CREATE_HANDLERS.includes(handler)) return CREATE_GROUP_TIMEOUT_SECONDS;
  if (handler === GROUP_REPORT_HANDLER) return GROUP_REPORT_TIMEOUT_SECONDS;
  // A void or refund of a whole group waits for its first payments' answers (contract/processing.ts).
  if (handler === VOID_OR_REFUND.apiHandler) return VOID_OR_REFUND.apiTimeoutSeconds;
  return API_FUNCTION_TIMEOUT_SECONDS;
}

/**
 * The non-production triggers' bounds per call: the groups the merchant-wide process-payments
 * starts (a claim and a StartExecution each) and the sales settle-now settles (a conditional
 * write each, 8 at once): a few seconds of their functions' 10. With more, the answer says `more`.
 */
export const MERCHANT_TRIGGER_GROUPS = 200;
/**
 * The payments a series PUT gives new methods (`payments`): one transaction holds the series, its
 * event and each payment with its method use moved and its new method checked (4 items a payment).
 */
export const SERIES_PUT_PAYMENTS = 20;
export const SETTLE_NOW_SALES = 2_000;
/**
 * The day-index entries (every merchant's sales of the period) one settle-now call reads: the
 * store's read limit (store/read-limits.ts), said in the contract's `more`.
 */
export const SETTLE_NOW_READ = 10_000;
