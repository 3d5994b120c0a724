/**
 * What the CLI shows: tables (cli-table3, fitted to the screen by layout.ts) and live progress
 * bars (cli-progress), never drawn by hand. The progress bars poll the API; without a terminal
 * they print a line now and then.
 */
import { Presets, SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import type { ScheduledPaymentsClient, Schemas } from '../../client/index';
import { sleep } from '../../lambdas/shared/clock';
import { barSize, fittedTable, screenWidth, type Give } from './layout';

type Payment = Schemas['Payment'];
type Group = Schemas['Group'];

const money = (n: number | undefined) => (n ?? 0).toFixed(2);

/** A readable UTC time: `2030-06-03 14:00:05 UTC`. */
export const readable = (iso: string | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '';

interface Outcomes {
  total: number;
  answered: number;
  approved: number;
  declined: number;
  failed: number;
  /** Approved bank debits the bank returned since (no longer approved). */
  returned: number;
}

export async function paymentsOf(
  api: ScheduledPaymentsClient,
  mid: string,
  groupId: string,
): Promise<Payment[]> {
  const payments: Payment[] = [];
  for await (const payment of api.allPayments(mid, groupId, 500)) payments.push(payment);
  return payments;
}

export function outcomesOf(payments: Payment[]): Outcomes {
  const live = payments.filter((p) => !p.deleted);
  const count = (status: string) => live.filter((p) => p.authResponse?.status === status).length;
  const [approved, declined, failed] = [count('Approved'), count('Declined'), count('Failed')];
  const returned = count('Returned');
  return {
    total: live.length,
    answered: approved + declined + failed + returned,
    approved,
    declined,
    failed,
    returned,
  };
}

/**
 * Watches a group being processed until it is processed: payments answered of the total, and
 * how many were approved, declined and failed so far.
 */
export async function watchProcessing(
  api: ScheduledPaymentsClient,
  mid: string,
  groupId: string,
  pollMs = 500,
  /** Stop watching after this long (the group may be waiting for a re-drive by the hourly tick). */
  timeoutMs = 30 * 60_000,
): Promise<Group> {
  const until = Date.now() + timeoutMs;
  let outcomes = outcomesOf(await paymentsOf(api, mid, groupId));
  // Within 80 columns even at 100,000 payments (the bar gives way).
  const format =
    'Processing {bar} {value}/{total} | {approved} approved, {declined} declined, {failed} failed';
  const bar = new SingleBar(
    {
      format,
      barsize: barSize(format, outcomes.total),
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    Presets.shades_classic,
  );
  bar.start(outcomes.total, outcomes.answered, outcomes);
  try {
    for (;;) {
      const group = await api.getGroup(mid, groupId);
      outcomes = outcomesOf(await paymentsOf(api, mid, groupId));
      bar.setTotal(outcomes.total);
      bar.update(outcomes.answered, outcomes);
      if (group.status !== 'processing' || Date.now() > until) return group;
      await sleep(pollMs);
    }
  } finally {
    bar.stop();
  }
}

/**
 * Watches a background void-or-refund (202) until its summary says done, or until `timeoutMs` has
 * passed (a run that failed keeps its summary `running`): the summary as last read, if any.
 */
export async function watchReversal(
  api: ScheduledPaymentsClient,
  mid: string,
  groupId: string,
  total: number,
  pollMs = 1000,
  timeoutMs = 30 * 60_000,
): Promise<Group['voidOrRefundSummary']> {
  const until = Date.now() + timeoutMs;
  // The counts by kind follow in the summary line when it is done; the bar fits 80 columns.
  const format = 'Reversing {bar} {value}/{total} | {failed} failed';
  const bar = new SingleBar(
    {
      format,
      barsize: barSize(format, total),
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0, { voided: 0, refunded: 0, scheduled: 0, skipped: 0, failed: 0 });
  try {
    for (;;) {
      const summary = (await api.getGroup(mid, groupId)).voidOrRefundSummary;
      if (Date.now() > until) return summary;
      if (summary) {
        const { voidedCount, refundedCount, refundScheduledCount, skippedCount, failedCount } = summary;
        const done = voidedCount + refundedCount + refundScheduledCount + skippedCount + failedCount;
        bar.update(done, {
          voided: voidedCount,
          refunded: refundedCount,
          scheduled: refundScheduledCount,
          skipped: skippedCount,
          failed: failedCount,
        });
        if (summary.status === 'done') return summary;
      }
      await sleep(pollMs);
    }
  } finally {
    bar.stop();
  }
}

/** A card charge's dispute as a line: `Disputed fraudulent (needs_response), 30.00`. */
export const disputeText = (d: { reason: string; status: string; amount: number }): string =>
  `Disputed ${d.reason} (${d.status}), ${money(d.amount)}`;

/** "Voided" rather than "Void Voided"; the type kept where the status does not say it ("Refund Completed"). */
export function reversalText(type: string, status: string): string {
  return status.toLowerCase().startsWith(type.toLowerCase()) ? status : `${type} ${status}`;
}

/** Rows the outcome table shows unless asked for all (`--all`; `--csv` writes every row to a file). */
export const FIRST_ROWS = 20;

/**
 * One row per payment: what the processing answered, and any reversal since. Fits the screen: the
 * payment id gives up width first (it then shows its last characters, which differ between
 * payments; its first ones are a time, the same for a whole group), then the reversal (a column
 * only once a payment has one), the order id and last the message wrap over lines: a decline's
 * reason is never cut. Shows the first FIRST_ROWS
 * rows unless `all`, and says how many more there are (the CSV report has them all).
 */
export function outcomeTable(payments: Payment[], all = false, width = screenWidth()): string {
  // The response code beside the status (`Declined 05`): one column less to share the screen.
  const head = ['#', 'Payment', 'Order', 'Amount', 'Status', 'Message', 'Reversal'];
  const shown = all ? payments : payments.slice(0, FIRST_ROWS);
  const rows = shown.map((p, i) => {
    const auth = p.authResponse;
    const reversal = (p.voidOrRefundResponses ?? []).at(-1);
    return [
      i + 1,
      p.paymentId,
      p.orderId ?? '',
      money(p.amount),
      // A returned debit shows the bank's return code and reason instead of the approval's, a
      // disputed charge its dispute.
      p.deleted
        ? 'Deleted'
        : [auth?.status ?? 'Pending', auth?.return?.code ?? auth?.responseCode ?? ''].join(' ').trim(),
      auth?.return
        ? `${auth.return.reason} (${auth.return.category})`
        : p.dispute && p.dispute.transactionId === auth?.transactionId
          ? disputeText(p.dispute)
          : (auth?.responseMessage ?? ''),
      reversal ? reversalText(reversal.type, reversal.status) : '',
    ];
  });
  // No reversal yet: no column for it (its room goes to the others).
  const reversed = rows.some((r) => r[6] !== '');
  if (!reversed) for (const row of [head, ...rows]) row.pop();
  // The message wraps between words first: as narrow as its longest word, no narrower.
  const words = rows.flatMap((r) => String(r[5]).split(' '));
  const longestWord = Math.max(0, ...words.map((w) => [...w].length));
  const give: Give[] = [
    { column: 1, min: 11, how: 'end' },
    ...(reversed ? [{ column: 6, min: 10, how: 'wrap' } as const] : []),
    { column: 2, min: 9, how: 'wrap' },
    { column: 5, min: Math.max(9, longestWord + 2), how: 'wrap' },
    { column: 5, min: 8, how: 'wrap' },
  ];
  const more = payments.length - shown.length;
  return (
    fittedTable(head, rows, give, width) +
    (more > 0
      ? `\n… and ${more} more: --all shows every row;\n\`spay group report <id> --csv -o <file>\` writes them all`
      : '')
  );
}

/** A slot as the CLI writes it: `2030-06-03 14h` (UTC). */
const slot = (g: Group) => `${g.scheduleDate} ${String(g.scheduleHour).padStart(2, '0')}h`;

/** One group as a list of its fields (its id whole: what a command takes), within 80 columns. */
export function groupCard(g: Group): string {
  const t = new Table({ style: { head: [], border: [] } });
  t.push(
    { Group: g.paymentGroupId },
    { 'Slot (UTC)': slot(g) },
    { Status: g.status },
    { Payments: g.paymentCount },
    { Total: money(g.totalAmount) },
  );
  const s = g.processingSummary;
  if (s)
    t.push(
      { Approved: `${s.approvedCount} (${money(s.approvedAmount)})` },
      // Returns move the summary after processing (approved no more): shown once there is one.
      ...(s.returnedCount > 0 ? [{ Returned: `${s.returnedCount} (${money(s.returnedAmount)})` }] : []),
      // Disputes too (still approved): shown once there is one.
      ...(s.disputedCount > 0 ? [{ Disputed: `${s.disputedCount} (${money(s.disputedAmount)})` }] : []),
    );
  return t.toString();
}

/** Groups, a row each, within 80 columns with whole ids (`spay group show` gives a total). */
export function groupTable(groups: Group[], width = screenWidth()): string {
  return fittedTable(
    ['Group', 'Slot (UTC)', 'Status', 'Count'],
    groups.map((g) => [g.paymentGroupId, slot(g), g.status, g.paymentCount]),
    [{ column: 1, min: 8, how: 'wrap' }],
    width,
  );
}

export const summaryLine = (o: Outcomes): string =>
  `${o.answered}/${o.total} answered: ${o.approved} approved, ${o.declined} declined, ${o.failed} failed` +
  (o.returned > 0 ? `, ${o.returned} returned` : '');
