/**
 * What the CLI shows: tables (cli-table3) and live progress bars (cli-progress), never drawn by
 * hand. The progress bars poll the API; without a terminal they print a line now and then.
 */
import { Presets, SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import type { ScheduledPaymentsClient, Schemas } from '../../client';
import { sleep } from '../../lambdas/shared/concurrency';

type Payment = Schemas['Payment'];
type Group = Schemas['Group'];

export const table = (head: string[], rows: (string | number)[][]): string => {
  // Colours on a terminal only: piped or captured output stays plain text.
  const colour = process.stdout.isTTY === true;
  const t = new Table({ head, style: colour ? { head: ['cyan'] } : { head: [], border: [] } });
  t.push(...rows);
  return t.toString();
};

const money = (n: number | undefined) => (n ?? 0).toFixed(2);

/** A readable UTC time: `2030-06-03 14:00:05 UTC`. */
export const readable = (iso: string | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '';

export interface Outcomes {
  total: number;
  answered: number;
  approved: number;
  declined: number;
  failed: number;
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
  return { total: live.length, answered: approved + declined + failed, approved, declined, failed };
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
  const bar = new SingleBar(
    {
      format:
        'Processing |{bar}| {value}/{total} answered | approved {approved} | declined {declined} | failed {failed}',
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    Presets.shades_classic,
  );
  let outcomes = outcomesOf(await paymentsOf(api, mid, groupId));
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

/** Watches a background void-or-refund (202) until its summary says done. */
export async function watchReversal(
  api: ScheduledPaymentsClient,
  mid: string,
  groupId: string,
  total: number,
  pollMs = 1000,
): Promise<NonNullable<Group['voidOrRefundSummary']>> {
  const bar = new SingleBar(
    {
      format:
        'Reversing |{bar}| {value}/{total} | voided {voided} | refunded {refunded} | refunds scheduled {scheduled} | skipped {skipped} | failed {failed}',
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

/** One row per payment: what the processing answered, and any reversal since. */
/** "Voided" rather than "Void Voided"; the type kept where the status does not say it ("Refund Completed"). */
export function reversalText(type: string, status: string): string {
  return status.toLowerCase().startsWith(type.toLowerCase()) ? status : `${type} ${status}`;
}

export function outcomeTable(payments: Payment[]): string {
  return table(
    ['#', 'Payment', 'Order', 'Amount', 'Status', 'Code', 'Message', 'Reversal'],
    payments.map((p, i) => {
      const auth = p.authResponse;
      const reversal = (p.voidOrRefundResponses ?? []).at(-1);
      return [
        i + 1,
        p.paymentId,
        p.orderId ?? '',
        money(p.amount),
        p.deleted ? 'Deleted' : (auth?.status ?? 'Pending'),
        auth?.responseCode ?? '',
        auth?.responseMessage ?? '',
        reversal ? reversalText(reversal.type, reversal.status) : '',
      ];
    }),
  );
}

export function groupTable(groups: Group[]): string {
  return table(
    ['Group', 'Date', 'Hour', 'Status', 'Payments', 'Total'],
    groups.map((g) => [
      g.paymentGroupId,
      g.scheduleDate,
      g.scheduleHour,
      g.status,
      g.paymentCount,
      money(g.totalAmount),
    ]),
  );
}

export const summaryLine = (o: Outcomes): string =>
  `${o.answered}/${o.total} answered: ${o.approved} approved, ${o.declined} declined, ${o.failed} failed`;
