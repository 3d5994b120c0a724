/**
 * A group's report (DESIGN section 5, "Group report"): the JSON counts over all its payments, and
 * its CSV in pages of REPORT_PAGE_ROWS rows that continue with a cursor (docs/decisions.md
 * "Group report CSV in pages"). Every invocation's reads are bounded in time.
 */
import { REPORT_PAGE_ROWS } from '#contract/limits';
import type { GroupReportView } from '#contract/schemas/reports';
import { addToReport, emptyReport, reportCsv, reportRow, reportView } from '#domain/reports';
import { BadRequestError, ServiceUnavailableError } from '#shared/errors';
import { decodePageToken, encodePageToken } from '#store/paging';
import { reportStore } from '#store/reports';
import { requireGroup } from './groups';

/** Payments one read of the JSON report asks for (DynamoDB answers at most 1 MB a read anyway). */
const JSON_READ = 10_000;
/**
 * The JSON report's reads end by then: under the function's timeout and API Gateway's 29 s. A
 * group of 100,000 payments of typical size is read in a few seconds.
 */
export const REPORT_JSON_BUDGET_MS = 20_000;
/** A CSV page's reads end by then; the page holds what was read (the cursor goes on from there). */
export const REPORT_PAGE_BUDGET_MS = 10_000;

/** The report's counts and amounts over every payment of the group. */
export async function groupReport(
  merchantId: string,
  groupId: string,
  budgetMs = REPORT_JSON_BUDGET_MS,
): Promise<GroupReportView> {
  const group = await requireGroup(groupId, merchantId);
  const until = Date.now() + budgetMs;
  const totals = emptyReport();
  let after: string | null = null;
  for (;;) {
    const { payments, more } = await reportStore().reportPayments(groupId, after, JSON_READ, until);
    for (const p of payments) addToReport(totals, p);
    after = payments.at(-1)?.paymentId ?? after;
    if (!more) break;
    if (Date.now() >= until)
      throw new ServiceUnavailableError('The report took longer than its time limit; retry shortly');
  }
  return reportView(group, totals);
}

/** A CSV page: its text (header row first) and the cursor of the next page, if any. */
export interface CsvPage {
  text: string;
  rows: number;
  next?: string;
}

const cursorScope = (groupId: string): string => `report:${groupId}`;

/** One CSV page of the group's payments, from the start or after `cursor`. */
export async function groupReportCsvPage(
  merchantId: string,
  groupId: string,
  cursor: string | undefined,
  pageRows = REPORT_PAGE_ROWS,
  budgetMs = REPORT_PAGE_BUDGET_MS,
): Promise<CsvPage> {
  await requireGroup(groupId, merchantId);
  let after: string | null = null;
  let offset = 0;
  if (cursor !== undefined) {
    const position = decodePageToken(cursor, cursorScope(groupId));
    if (!position) throw new BadRequestError('cursor is not the cursor of a report page of this group');
    after = position.after;
    offset = position.offset;
  }
  const read = await reportStore().reportPayments(groupId, after, pageRows, Date.now() + budgetMs);
  const { payments } = read;
  const text = reportCsv(payments.map(reportRow), true);
  const last = payments.at(-1);
  const next =
    read.more && last
      ? encodePageToken(
          { after: last.paymentId, offset: offset + payments.length, total: 0, pageSize: pageRows },
          cursorScope(groupId),
        )
      : undefined;
  return { text, rows: payments.length, ...(next && { next }) };
}
