/**
 * A group's report (DESIGN section 5, "Group report"): counts and amounts over its payments, and
 * one row per payment (written as CSV or a spreadsheet by report-files.ts). Plain functions, no
 * AWS; amounts kept in cents until the view.
 *
 * The counts follow the processing summary's rules (countOutcome: by each payment's latest
 * attempt), so a processed group's report agrees with its processingSummary, and its `payments`
 * and `amounts.scheduled` with its paymentCount and totalAmount.
 */
import { REPORT_MESSAGE_CHARS } from '#contract/limits';
import { REPORT_COLUMNS, type GroupReportView } from '#contract/schemas/reports';
import type { Group, Payment } from './groups';
import { fromCents, toCents, type Cents } from './money';
import { countOutcome, emptyTotals, type ProcessingTotals } from './processing';

/** What a report row reads of a payment (the store reads only these attributes). */
export type ReportPayment = Pick<
  Payment,
  | 'paymentId'
  | 'orderId'
  | 'sponsorKey'
  | 'profileId'
  | 'amountCents'
  | 'deleted'
  | 'authResponse'
  | 'attempts'
  | 'retry'
  | 'voidOrRefundResponses'
  | 'dispute'
>;

/** The attributes of a payment item a report reads. */
export const REPORT_ATTRIBUTES: readonly (keyof ReportPayment)[] = [
  'paymentId',
  'orderId',
  'sponsorKey',
  'profileId',
  'amountCents',
  'deleted',
  'authResponse',
  'attempts',
  'retry',
  'voidOrRefundResponses',
  'dispute',
];

export type ReportRow = Record<(typeof REPORT_COLUMNS)[number], string>;

/**
 * A payment's state in the report: deleted; scheduled (not charged yet); approved, partial
 * (approved for less than its amount), returned (its approved bank debit returned since),
 * declined or failed by its latest attempt.
 */
type RowStatus = 'deleted' | 'scheduled' | 'approved' | 'partial' | 'returned' | 'declined' | 'failed';

function rowStatus(p: ReportPayment): RowStatus {
  if (p.deleted) return 'deleted';
  const auth = p.authResponse;
  if (!auth) return 'scheduled';
  if (auth.status === 'Approved')
    return toCents(auth.approvedAmount) < p.amountCents ? 'partial' : 'approved';
  if (auth.status === 'Returned') return 'returned';
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

/**
 * A processor's message as a row shows it: control characters as spaces, a lone surrogate as
 * U+FFFD (a file is UTF-8, which cannot hold one), at most REPORT_MESSAGE_CHARS characters.
 */
export function reportMessage(message: string): string {
  const line = message
    // eslint-disable-next-line no-control-regex -- the control characters are what is replaced
    .replace(/[\u0000-\u001F\u007F-\u009F]/g, ' ')
    .replace(/\p{Cs}/gu, '\uFFFD');
  const chars = [...line];
  return chars.length <= REPORT_MESSAGE_CHARS
    ? line
    : `${chars.slice(0, REPORT_MESSAGE_CHARS - 1).join('')}…`;
}

/**
 * The payment's row (every cell text; empty where the payment has no value), with its payor's
 * customerAccountId (empty when the payor has none, or is deleted).
 */
export function reportRow(p: ReportPayment, customerAccountId = ''): ReportRow {
  const auth = p.deleted ? null : p.authResponse;
  const approved = auth?.status === 'Approved' ? toCents(auth.approvedAmount) : 0;
  return {
    paymentId: p.paymentId,
    orderId: p.orderId ?? '',
    profileId: p.profileId,
    amount: fromCents(p.amountCents).toFixed(2),
    status: rowStatus(p),
    responseCode: auth?.responseCode ?? '',
    declineCategory:
      auth?.status === 'Declined' || auth?.status === 'Failed' ? (auth.declineCategory ?? '') : '',
    attempts: String(attemptsOf(p)),
    approvedAmount: fromCents(approved).toFixed(2),
    refundedAmount: fromCents(refundedCents(p)).toFixed(2),
    voided: String(voidedCents(p) > 0),
    customerAccountId,
    processedAt: auth?.processedAt ?? '',
    responseMessage: auth ? reportMessage(auth.responseMessage) : '',
    returnCode: auth?.status === 'Returned' ? (auth.return?.code ?? '') : '',
    disputeStatus:
      auth?.status === 'Approved' && p.dispute !== undefined && p.dispute.transactionId === auth.transactionId
        ? p.dispute.status
        : '',
    sponsorKey: p.sponsorKey ?? '',
  };
}

/** The running sums of a report, in cents. */
interface ReportTotals {
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

/**
 * Adds one payment to the sums. A deleted payment counts as deleted and nowhere else; a returned
 * one as returned, a disputed one as disputed (whether or not its group's summary counts it yet).
 */
export function addToReport(t: ReportTotals, p: ReportPayment): void {
  countOutcome(t.outcomes, p, undefined, true);
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
      returned: o.returned ?? 0,
      disputed: o.disputed ?? 0,
    },
    amounts: {
      scheduled: fromCents(t.scheduledCents),
      approved: fromCents(o.approvedCents),
      declined: fromCents(t.declinedCents),
      failed: fromCents(t.failedCents),
      voided: fromCents(t.voidedCents),
      refunded: fromCents(t.refundedCents),
      returned: fromCents(o.returnedCents ?? 0),
      disputed: fromCents(o.disputedCents ?? 0),
    },
  };
}
