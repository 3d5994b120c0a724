/**
 * A group's report (DESIGN section 5, "Group report"): counts and amounts over its payments, and
 * one CSV row per payment. Plain functions, no AWS; amounts kept in cents until the view.
 *
 * The counts follow the processing summary's rules (countOutcome: by each payment's latest
 * attempt), so a processed group's report agrees with its processingSummary, and its `payments`
 * and `amounts.scheduled` with its paymentCount and totalAmount.
 */
import { stringify } from 'csv-stringify/sync';
import type { GroupReportView } from '#contract/schemas/reports';
import type { Group, Payment } from './groups';
import { fromCents, toCents, type Cents } from './money';
import { countOutcome, emptyTotals, type ProcessingTotals } from './processing';

/** What a report row reads of a payment (the store reads only these attributes). */
export type ReportPayment = Pick<
  Payment,
  | 'paymentId'
  | 'orderId'
  | 'profileId'
  | 'amountCents'
  | 'deleted'
  | 'authResponse'
  | 'attempts'
  | 'retry'
  | 'voidOrRefundResponses'
>;

/** The attributes of a payment item a report reads. */
export const REPORT_ATTRIBUTES: readonly (keyof ReportPayment)[] = [
  'paymentId',
  'orderId',
  'profileId',
  'amountCents',
  'deleted',
  'authResponse',
  'attempts',
  'retry',
  'voidOrRefundResponses',
];

/** The CSV's columns, in order (DESIGN section 5). */
export const REPORT_COLUMNS = [
  'paymentId',
  'orderId',
  'profileId',
  'amount',
  'status',
  'responseCode',
  'declineCategory',
  'attempts',
  'approvedAmount',
  'refundedAmount',
  'voided',
] as const;

export type ReportRow = Record<(typeof REPORT_COLUMNS)[number], string>;

/**
 * A payment's state in the report: deleted; scheduled (not charged yet); approved, partial
 * (approved for less than its amount), declined or failed by its latest attempt.
 */
export type RowStatus = 'deleted' | 'scheduled' | 'approved' | 'partial' | 'declined' | 'failed';

export function rowStatus(p: ReportPayment): RowStatus {
  if (p.deleted) return 'deleted';
  const auth = p.authResponse;
  if (!auth) return 'scheduled';
  if (auth.status === 'Approved')
    return toCents(auth.approvedAmount) < p.amountCents ? 'partial' : 'approved';
  return auth.status === 'Failed' ? 'failed' : 'declined';
}

/** A void that took: the sale is voided (its whole approved amount). */
const voidedCents = (p: ReportPayment): Cents =>
  (p.voidOrRefundResponses ?? [])
    .filter((r) => r.type === 'Void' && r.status === 'Voided')
    .reduce((sum, r) => sum + toCents(r.amount), 0);

/**
 * Refunds sent or scheduled (Completed, or Pending: a refund recorded inside the void margin,
 * its amount reserved and sent right after the cut-off); a Failed refund moved nothing.
 */
const refundedCents = (p: ReportPayment): Cents =>
  (p.voidOrRefundResponses ?? [])
    .filter((r) => r.type === 'Refund' && r.status !== 'Failed')
    .reduce((sum, r) => sum + toCents(r.amount), 0);

const attemptsOf = (p: ReportPayment): number => p.attempts?.length ?? (p.authResponse ? 1 : 0);

/** The payment's CSV row (every cell text; empty where the payment has no value). */
export function reportRow(p: ReportPayment): ReportRow {
  const auth = p.deleted ? null : p.authResponse;
  const approved = auth?.status === 'Approved' ? toCents(auth.approvedAmount) : 0;
  return {
    paymentId: p.paymentId,
    orderId: p.orderId ?? '',
    profileId: p.profileId,
    amount: fromCents(p.amountCents).toFixed(2),
    status: rowStatus(p),
    responseCode: auth?.responseCode ?? '',
    declineCategory: auth && auth.status !== 'Approved' ? (auth.declineCategory ?? '') : '',
    attempts: String(attemptsOf(p)),
    approvedAmount: fromCents(approved).toFixed(2),
    refundedAmount: fromCents(refundedCents(p)).toFixed(2),
    voided: String(voidedCents(p) > 0),
  };
}

/**
 * A cell a spreadsheet would run as a formula (OWASP "CSV injection": a leading `=`, `+`, `-`,
 * `@`, tab or carriage return) gets a leading `'`, which spreadsheets show as text. Only free
 * text can start so: amounts are never negative, ids and codes never start with these.
 */
export const neutralise = (cell: string): string => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

/**
 * Rows as RFC 4180 CSV (CRLF line ends; a cell with a comma, quote or line break quoted, its
 * quotes doubled), each cell neutralised; with `header`, the column names first.
 */
export const reportCsv = (rows: readonly ReportRow[], header: boolean): string =>
  stringify(
    rows.map((row) => REPORT_COLUMNS.map((c) => neutralise(row[c]))),
    // A lone CR or LF is quoted too (csv-stringify quotes only the record delimiter itself).
    { header, columns: [...REPORT_COLUMNS], record_delimiter: 'windows', quoted_match: /[\r\n]/ },
  );

/** The running sums of a report, in cents. */
export interface ReportTotals {
  outcomes: ProcessingTotals;
  payments: number;
  declinedCategory1: number;
  declinedCategory2: number;
  voided: number;
  refunded: number;
  scheduledCents: Cents;
  declinedCents: Cents;
  failedCents: Cents;
  voidedCents: Cents;
  refundedCents: Cents;
}

export const emptyReport = (): ReportTotals => ({
  outcomes: emptyTotals(),
  payments: 0,
  declinedCategory1: 0,
  declinedCategory2: 0,
  voided: 0,
  refunded: 0,
  scheduledCents: 0,
  declinedCents: 0,
  failedCents: 0,
  voidedCents: 0,
  refundedCents: 0,
});

/** Adds one payment to the sums. A deleted payment counts as deleted and nowhere else. */
export function addToReport(t: ReportTotals, p: ReportPayment): void {
  countOutcome(t.outcomes, p);
  if (p.deleted) return;
  t.payments++;
  t.scheduledCents += p.amountCents;
  const auth = p.authResponse;
  if (auth?.status === 'Declined') {
    t.declinedCents += p.amountCents;
    if (auth.declineCategory === '1') t.declinedCategory1++;
    else t.declinedCategory2++;
  } else if (auth?.status === 'Failed') t.failedCents += p.amountCents;
  const voided = voidedCents(p);
  const refunded = refundedCents(p);
  if (voided > 0) t.voided++;
  if (refunded > 0) t.refunded++;
  t.voidedCents += voided;
  t.refundedCents += refunded;
}

/** The report's JSON body. */
export function reportView(group: Group, t: ReportTotals): GroupReportView {
  const o = t.outcomes;
  return {
    paymentGroupId: group.paymentGroupId,
    status: group.status,
    ...(group.executionArn !== undefined && { executionArn: group.executionArn }),
    ...(group.processingSince !== undefined && { startedAt: group.processingSince }),
    ...(group.processingSummary && { completedAt: group.processingSummary.processedAt }),
    counts: {
      payments: t.payments,
      deleted: o.skipped,
      approved: o.approved,
      partial: o.partial,
      declined: o.declined,
      declinedCategory1: t.declinedCategory1,
      declinedCategory2: t.declinedCategory2,
      failed: o.failed,
      voided: t.voided,
      refunded: t.refunded,
      retryScheduled: o.retriesScheduled ?? 0,
      recovered: o.recovered ?? 0,
    },
    amounts: {
      scheduled: fromCents(t.scheduledCents),
      approved: fromCents(o.approvedCents),
      declined: fromCents(t.declinedCents),
      failed: fromCents(t.failedCents),
      voided: fromCents(t.voidedCents),
      refunded: fromCents(t.refundedCents),
    },
  };
}
