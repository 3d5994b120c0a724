/**
 * Nacha return rates (docs/product.md#return-rates): plain arithmetic, no AWS. A merchant's bank
 * debits and their returns are counted per UTC day **of the debit** (a return counts on the day of
 * the debit it returns, however late it comes); the rates are those of the last
 * RETURN_RATE_WINDOW_DAYS days up to today, so a debit and its returns leave the window together.
 *
 * Statuses compare the exact counts with the limits (integer arithmetic, no rounding); the rate
 * shown is rounded to 4 decimals.
 */
import { RETURN_RATES_METRIC } from '#contract/return-rates';
import { newEvent, type ServiceEvent } from './events';
import { countMetricLine } from './metrics';

/** The window: today and the 59 UTC days before it. */
export const RETURN_RATE_WINDOW_DAYS = 60;

/** The kinds of return a bank reports (what the service does about each: docs/product.md). */
export const RETURN_CATEGORIES = ['nsf', 'administrative', 'unauthorized', 'other'] as const;
export type ReturnCategory = (typeof RETURN_CATEGORIES)[number];

/** The rates Nacha watches: two kinds of return, and every return. */
type ReturnRateKind = 'unauthorized' | 'administrative' | 'overall';

/**
 * Nacha's thresholds: unauthorized returns 0.5%, administrative 3%, overall 15% of the debits,
 * in hundredths of a basis point (1 = 0.0001) so that statuses are exact integer comparisons.
 */
const LIMIT_TEN_THOUSANDTHS: Readonly<Record<ReturnRateKind, number>> = {
  unauthorized: 50,
  administrative: 300,
  overall: 1500,
};

export const RETURN_RATE_LIMITS: Readonly<Record<ReturnRateKind, number>> = {
  unauthorized: LIMIT_TEN_THOUSANDTHS.unauthorized / 10_000,
  administrative: LIMIT_TEN_THOUSANDTHS.administrative / 10_000,
  overall: LIMIT_TEN_THOUSANDTHS.overall / 10_000,
};

/** From best to worst. */
export const RETURN_RATE_STATUSES = ['ok', 'warning', 'alert', 'over'] as const;
export type ReturnRateStatus = (typeof RETURN_RATE_STATUSES)[number];

/** A status that calls the merchant's (and the operator's) attention: the alarm watches these. */
export const needsAttention = (status: ReturnRateStatus): boolean => status === 'alert' || status === 'over';

/** One day's counts (of one shard or summed): debits of that day, and their returns by category. */
export interface DayCounts {
  /** `yyyy-mm-dd` (UTC): the day of the debits. */
  day: string;
  debits: number;
  returns: Partial<Record<ReturnCategory, number>>;
}

export interface KindRate {
  count: number;
  rate: number;
  limit: number;
  status: ReturnRateStatus;
}

export interface ReturnRates {
  windowDays: number;
  debitCount: number;
  unauthorized: KindRate;
  administrative: KindRate;
  overall: KindRate;
  status: ReturnRateStatus;
}

const DAY_MS = 86_400_000;

/** The UTC day (`yyyy-mm-dd`) of an ISO time. */
export const utcDay = (at: string | Date): string =>
  (typeof at === 'string' ? new Date(at) : at).toISOString().slice(0, 10);

/** The window at `now`: its first and last UTC days, both included. */
export function returnRateWindow(now: Date): { since: string; until: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return {
    since: new Date(today - (RETURN_RATE_WINDOW_DAYS - 1) * DAY_MS).toISOString().slice(0, 10),
    until: new Date(today).toISOString().slice(0, 10),
  };
}

/**
 * `count` over `debits` to four decimals, half up, in whole numbers (floating point takes some exact
 * halves down: 139 / 800 = 0.17375 is 1737.4999… ten-thousandths); 0 without debits.
 */
const roundedRate = (count: number, debits: number): number =>
  debits === 0 ? 0 : Math.floor((2 * count * 10_000 + debits) / (2 * debits)) / 10_000;

/**
 * The status of `count` returns of `debits` debits against `kind`'s limit, exactly: `over` above
 * the limit, `alert` at 80% of it or more, `warning` at half of it or more, `ok` below.
 */
export function rateStatus(kind: ReturnRateKind, count: number, debits: number): ReturnRateStatus {
  if (debits === 0 || count === 0) return 'ok';
  const limit = LIMIT_TEN_THOUSANDTHS[kind];
  // count / debits against limit / 10_000, multiplied out (both sides integers).
  const scaled = count * 10_000;
  if (scaled > limit * debits) return 'over';
  if (scaled * 10 >= limit * 8 * debits) return 'alert';
  if (scaled * 2 >= limit * debits) return 'warning';
  return 'ok';
}

/** The worse of two statuses. */
export const worse = (a: ReturnRateStatus, b: ReturnRateStatus): ReturnRateStatus =>
  RETURN_RATE_STATUSES.indexOf(a) >= RETURN_RATE_STATUSES.indexOf(b) ? a : b;

const kindRate = (kind: ReturnRateKind, count: number, debits: number): KindRate => ({
  count,
  rate: roundedRate(count, debits),
  limit: RETURN_RATE_LIMITS[kind],
  status: rateStatus(kind, count, debits),
});

/**
 * The rates at `now` from day counts (any number per day: shards are summed; days outside the
 * window are left out).
 */
export function returnRates(days: readonly DayCounts[], now: Date): ReturnRates {
  const { since, until } = returnRateWindow(now);
  let debitCount = 0;
  const returns: Record<ReturnCategory, number> = { nsf: 0, administrative: 0, unauthorized: 0, other: 0 };
  for (const d of days) {
    if (d.day < since || d.day > until) continue;
    debitCount += d.debits;
    for (const category of RETURN_CATEGORIES) returns[category] += d.returns[category] ?? 0;
  }
  const overall = RETURN_CATEGORIES.reduce((sum, c) => sum + returns[c], 0);
  const rates = {
    unauthorized: kindRate('unauthorized', returns.unauthorized, debitCount),
    administrative: kindRate('administrative', returns.administrative, debitCount),
    overall: kindRate('overall', overall, debitCount),
  };
  return {
    windowDays: RETURN_RATE_WINDOW_DAYS,
    debitCount,
    ...rates,
    status: worse(worse(rates.unauthorized.status, rates.administrative.status), rates.overall.status),
  };
}

/** The event announcing a merchant's new status: the rates as the route shows them. */
export const returnRatesEvent = (
  merchantId: string,
  rates: ReturnRates,
  sequence: number,
  now: Date,
): ServiceEvent<ReturnRates> =>
  newEvent(
    { type: 'merchant.return_rates_changed', merchantId, objectId: merchantId, sequence, data: rates },
    now,
  );

/** The metric line (Embedded Metric Format) of the merchants at `alert` or `over`. */
export const attentionMetricLine = (count: number, stage: string, at: Date): string =>
  countMetricLine(RETURN_RATES_METRIC, count, stage, at);
