/**
 * Reconciliation (docs/architecture.md#reconciliation): the processor's activity over a window
 * against the service's sales, refunds and scheduled payments, every difference reported by kind.
 *
 * The sweeper runs between two comparisons: a difference found before it and gone after it is
 * reported as healed; what the second comparison still finds is unhealed (an operator's work, and
 * the alarm's metric). Without a sweeper (`heal: false`) one comparison is made and nothing heals.
 */
import { SWEEP_BUDGET_SECONDS } from '#contract/processing';
import { config } from '#shared/config';
import { ddb } from '#shared/ddb';
import { paymentProcessor } from '#core/processor';
import type { PaymentProcessor } from '#processor/processor';
import { saleIdOfKey } from '#domain/processor-keys';
import { ReconciliationRecords } from '#store/reconciliation';
import {
  compare,
  differenceKey,
  DIFFERENCE_KINDS,
  reportedReturns,
  type Difference,
  type DifferenceKind,
} from './reconcile-compare';
import { sweep } from './sweeper';
import { clock } from '#shared/clock';

export { type Difference, type DifferenceKind };

interface ReconcileOptions {
  since: string;
  /** Default: now. */
  until?: string;
  now?: Date;
  /** Pending work older than this is a difference (default 30). */
  staleMinutes?: number;
  /** Run the sweeper between the comparisons (default true). */
  heal?: boolean;
}

export interface ReconcileReport {
  since: string;
  until: string;
  generatedAt: string;
  staleMinutes: number;
  /** Per kind: healed by the sweeper, and remaining. */
  counts: Record<DifferenceKind, { healed: number; unhealed: number }>;
  healed: number;
  unhealed: number;
  differences: Difference[];
  /** Differences counted but not listed (listedDifferences): the counts stay whole. */
  differencesNotListed?: number;
  /** Bank debits returned in the window, as the processor reports them: how many, what they gave back. */
  returns: { count: number; cents: number };
}

export interface ReconcileDeps {
  records: ReconciliationRecords;
  processor: PaymentProcessor;
  /** Settles stale Pending work (core/sweeper.ts). */
  sweep: (now: Date, olderThanSeconds: number) => Promise<unknown>;
}

/** A record's processor call can fall just outside the window (a sale recorded after its answer). */
const SLACK_MS = 24 * 3600_000;

const DEFAULT_STALE_MINUTES = 30;

const defaultDeps = (): ReconcileDeps => ({
  records: new ReconciliationRecords(ddb(), config().tableName),
  processor: paymentProcessor(),
  // As the scheduled sweeper: no item started after its budget (a processor in an outage answers
  // each call at its timeout), so the run ends with its report; what is left, the next sweep takes.
  sweep: (now, olderThanSeconds) =>
    sweep(now, { olderThanSeconds, deadline: clock.nowMs() + SWEEP_BUDGET_SECONDS * 1000 }),
});

/** One comparison: reads both sides, then compares (with the processor's returns, counted). */
async function differences(
  deps: ReconcileDeps,
  window: { since: string; until: string; now: Date; staleMinutes: number },
): Promise<{ found: Difference[]; returns: ReconcileReport['returns'] }> {
  const { since, until, now } = window;
  const from = new Date(Date.parse(since) - SLACK_MS).toISOString();
  const [activity, listed, refunds, unanswered] = await Promise.all([
    deps.processor.listActivity(from, now.toISOString()),
    deps.records.salesBetween(from, until),
    deps.records.refundsBetween(from, until),
    deps.records.unansweredPayments(since, until),
  ]);
  // Sales the processor or a refund names that were written outside the listing: read by id.
  const sales = new Map(listed.map((t) => [t.transactionId, t]));
  const named = new Set([
    ...activity.map((a) => saleIdOfKey(a.idempotencyKey)),
    ...refunds.map((r) => r.transactionId),
  ]);
  const missing = [...named].filter((id): id is string => id !== undefined && !sales.has(id));
  const extra = await Promise.all(missing.map((id) => deps.records.sale(id)));
  for (const found of extra) if (found) sales.set(found.transaction.transactionId, found.transaction);
  const found = compare({ ...window, activity, sales: [...sales.values()], refunds, unanswered });
  return { found, returns: reportedReturns({ ...window, activity }) };
}

export async function reconcile(
  options: ReconcileOptions,
  deps: ReconcileDeps = defaultDeps(),
): Promise<ReconcileReport> {
  const now = options.now ?? clock.now();
  const window = {
    since: options.since,
    until: options.until ?? now.toISOString(),
    now,
    staleMinutes: options.staleMinutes ?? DEFAULT_STALE_MINUTES,
  };
  const first = await differences(deps, window);
  const before = first.found;
  let found = before;
  let returns = first.returns;
  if (options.heal !== false && before.length > 0) {
    await deps.sweep(now, window.staleMinutes * 60);
    const second = await differences(deps, { ...window, now: clock.now() });
    const after = second.found;
    returns = second.returns;
    const remaining = new Set(after.map(differenceKey));
    const seen = new Set(before.map(differenceKey));
    found = [
      ...before.map((d) => ({ ...d, healed: !remaining.has(differenceKey(d)) })),
      ...after.filter((d) => !seen.has(differenceKey(d))),
    ];
  }
  const counts = Object.fromEntries(
    DIFFERENCE_KINDS.map((k) => [k, { healed: 0, unhealed: 0 }]),
  ) as ReconcileReport['counts'];
  for (const d of found) counts[d.kind][d.healed ? 'healed' : 'unhealed'] += 1;
  const healed = found.filter((d) => d.healed).length;
  return {
    since: window.since,
    until: window.until,
    generatedAt: now.toISOString(),
    staleMinutes: window.staleMinutes,
    counts,
    healed,
    unhealed: found.length - healed,
    differences: found,
    returns,
  };
}

const DAY_MS = 24 * 3600_000;

/** An EventBridge event (its `time`), or the operator's invocation (`since`, `staleMinutes`). */
export interface ReconcileEvent {
  time?: string;
  since?: string;
  staleMinutes?: number;
}

/** The window's start an event asks for; a bad one is refused before anything runs. */
export function windowOf(event: ReconcileEvent): { since: string; now: Date; staleMinutes?: number } {
  const now = event.time !== undefined ? new Date(event.time) : clock.now();
  if (Number.isNaN(now.getTime())) throw new Error(`time ${String(event.time)} is not an ISO-8601 time`);
  const since = event.since !== undefined ? new Date(event.since) : new Date(now.getTime() - DAY_MS);
  if (Number.isNaN(since.getTime())) throw new Error(`since ${String(event.since)} is not an ISO-8601 time`);
  const { staleMinutes } = event;
  if (staleMinutes !== undefined && !(Number.isInteger(staleMinutes) && staleMinutes > 0))
    throw new Error(`staleMinutes ${String(staleMinutes)} is not a whole number of minutes above 0`);
  return { since: since.toISOString(), now, ...(staleMinutes !== undefined && { staleMinutes }) };
}

/**
 * The report with at most `max` differences listed, unhealed ones first (what the operator acts
 * on), the rest counted in differencesNotListed: a run with many differences still fits a log
 * event and a Lambda answer. The counts are those of every difference.
 */
export function listedDifferences(report: ReconcileReport, max: number): ReconcileReport {
  if (report.differences.length <= max) return report;
  const ordered = [
    ...report.differences.filter((d) => !d.healed),
    ...report.differences.filter((d) => d.healed),
  ];
  return { ...report, differences: ordered.slice(0, max), differencesNotListed: ordered.length - max };
}
