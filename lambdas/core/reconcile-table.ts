/**
 * The reconciliation report for people: counts by kind, then one line per difference, in plain
 * aligned columns (the JSON report is for machines).
 */
import { formatCents } from '#domain/money';
import { DIFFERENCE_KINDS, type Difference } from './reconcile-compare';
import type { ReconcileReport } from './reconcile';

/** Rows as columns padded to their widest cell, separated by two spaces. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

const money = (cents: number | undefined): string => (cents === undefined ? '-' : formatCents(cents));

/** The ids an operator looks up, most specific first. */
const idsOf = (d: Difference): string =>
  [
    d.refundId && `refund ${d.refundId}`,
    d.transactionId && `txn ${d.transactionId}`,
    d.paymentId && `payment ${d.paymentId}`,
    d.paymentGroupId && `group ${d.paymentGroupId}`,
    !d.transactionId && !d.refundId && d.processorKey && `key ${d.processorKey}`,
  ]
    .filter(Boolean)
    .join(', ');

export function renderReport(report: ReconcileReport): string {
  const returns =
    report.returns.count > 0
      ? `; ${report.returns.count} bank returns reported (${formatCents(report.returns.cents)})`
      : '';
  const title = `reconciliation ${report.since} .. ${report.until}: ${report.unhealed} unhealed, ${report.healed} healed${returns}`;
  const counts = alignColumns([
    ['kind', 'healed', 'unhealed'],
    ...DIFFERENCE_KINDS.map((k) => [k, String(report.counts[k].healed), String(report.counts[k].unhealed)]),
  ]);
  if (report.differences.length === 0) return `${title}\n\n${counts}\n`;
  const lines = alignColumns([
    ['kind', 'healed', 'merchant', 'record', 'processor', 'ids', 'detail'],
    ...report.differences.map((d) => [
      d.kind,
      d.healed ? 'yes' : 'no',
      d.merchantId,
      money(d.recordCents),
      money(d.processorCents),
      idsOf(d),
      d.detail,
    ]),
  ]);
  const more = report.differencesNotListed
    ? `\n${report.differencesNotListed} more not listed: reconcile a shorter window (--since) to list them\n`
    : '';
  return `${title}\n\n${counts}\n\n${lines}\n${more}`;
}
