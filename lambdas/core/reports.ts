/**
 * A group's report (DESIGN section 5, "Group report"): the JSON counts over all its payments, and
 * its payments as CSV or .xlsx files in pages of at most REPORT_PAGE_ROWS rows that continue with
 * a cursor (docs/decisions.md "Group report CSV in pages"). Every invocation's reads are bounded
 * in time, and its work by the page's rows.
 */
import { REPORT_PAGE_BYTES, REPORT_PAGE_ROWS } from '#contract/limits';
import type { GroupReportView } from '#contract/schemas/reports';
import { parseProfileId } from '#domain/payors';
import { csvPage, sheetPage } from '#domain/report-files';
import { addToReport, emptyReport, reportRow, reportView, type ReportPayment } from '#domain/reports';
import { BadRequestError, ServiceUnavailableError } from '#shared/errors';
import { decodePageToken, encodePageToken } from '#store/paging';
import { reportStore } from '#store/reports';
import { requireGroup } from './groups';
import { clock } from '#shared/clock';

/** Payments one read of the JSON report asks for (DynamoDB answers at most 1 MB a read anyway). */
const JSON_READ = 10_000;
/**
 * The JSON report's reads end by then: under the function's timeout and API Gateway's 29 s. A
 * group of 100,000 payments of typical size is read in a few seconds.
 */
export const REPORT_JSON_BUDGET_MS = 20_000;
/** A page's reads end by then; the page holds what was read (the cursor goes on from there). */
export const REPORT_PAGE_BUDGET_MS = 10_000;

/** The report's counts and amounts over every payment of the group. */
export async function groupReport(
  merchantId: string,
  groupId: string,
  budgetMs = REPORT_JSON_BUDGET_MS,
): Promise<GroupReportView> {
  const group = await requireGroup(groupId, merchantId);
  const until = clock.nowMs() + budgetMs;
  const totals = emptyReport();
  let after: string | null = null;
  for (;;) {
    const { payments, more } = await reportStore().reportPayments(groupId, after, JSON_READ, until);
    for (const p of payments) addToReport(totals, p);
    after = payments.at(-1)?.paymentId ?? after;
    if (!more) break;
    if (clock.nowMs() >= until)
      throw new ServiceUnavailableError('The report took longer than its time limit; retry shortly');
  }
  return reportView(group, totals);
}

/** A page's file: CSV text, or an .xlsx workbook's bytes. */
export type ReportFormat = 'csv' | 'xlsx';

/** A page of the report as a file, how many rows it holds, and the cursor of the next page, if any. */
type ReportPage = ({ format: 'csv'; text: string } | { format: 'xlsx'; bytes: Buffer }) & {
  rows: number;
  next?: string;
};

const cursorScope = (groupId: string): string => `report:${groupId}`;

/**
 * One page of the group's payments as a file, from the start or after `cursor`: at most
 * REPORT_PAGE_ROWS payments, read within REPORT_PAGE_BUDGET_MS, with their payors'
 * customerAccountIds (a BatchGet per 100 payors), as many as fit REPORT_PAGE_BYTES of answer
 * (domain/report-files.ts). CSV and .xlsx pages share their cursors: a page's rows are the same
 * whichever is asked, unless the bytes cut it short.
 */
export async function groupReportPage(
  merchantId: string,
  groupId: string,
  cursor: string | undefined,
  format: ReportFormat,
): Promise<ReportPage> {
  await requireGroup(groupId, merchantId);
  let after: string | null = null;
  let offset = 0;
  if (cursor !== undefined) {
    const position = decodePageToken(cursor, cursorScope(groupId));
    if (!position) throw new BadRequestError('cursor is not the cursor of a report page of this group');
    after = position.after;
    offset = position.offset;
  }
  const store = reportStore();
  const read = await store.reportPayments(
    groupId,
    after,
    REPORT_PAGE_ROWS,
    clock.nowMs() + REPORT_PAGE_BUDGET_MS,
  );
  const payorOf = (p: ReportPayment) => parseProfileId(p.profileId).payorId;
  const accounts = await store.customerAccounts(merchantId, read.payments.map(payorOf));
  const rows = read.payments.map((p) => reportRow(p, accounts.get(payorOf(p)) ?? ''));
  const file =
    format === 'csv'
      ? { format, ...csvPage(rows, REPORT_PAGE_BYTES) }
      : await sheetPage(rows, REPORT_PAGE_BYTES).then(({ bytes, rows }) => ({ format, bytes, rows }));
  const last = read.payments[file.rows - 1];
  const more = read.more || file.rows < read.payments.length;
  const next =
    more && last
      ? encodePageToken(
          { after: last.paymentId, offset: offset + file.rows, total: 0, pageSize: REPORT_PAGE_ROWS },
          cursorScope(groupId),
        )
      : undefined;
  return { ...file, ...(next && { next }) };
}
