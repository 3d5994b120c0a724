/**
 * A merchant's Nacha return rates (docs/product.md#return-rates): read from the day counters
 * (store/return-rates.ts) as the route shows them, and recomputed by the return-rates job, which
 * announces a change of status (`merchant.return_rates_changed`) and publishes how many merchants
 * are at `alert` or `over` for the stage's alarm.
 *
 * The job runs every hour and is bounded: first the merchants whose counts a return moved since
 * (their marks), then the day's pass over every merchant (the window moves at midnight UTC, so a
 * status can change with no new return), continued from a cursor until each merchant has been
 * recomputed once that day. No merchant is started after the deadline; the next run goes on.
 */
import {
  needsAttention,
  returnRates,
  returnRatesEvent,
  returnRateWindow,
  type ReturnRates,
} from '#domain/return-rates';
import { nextSequence } from '#domain/events';
import { clock } from '#shared/clock';
import { logger } from '#shared/logger';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { returnRateStore } from '#store/return-rates';

/** The merchant's rates at `now`, from its counters. */
export async function merchantReturnRates(merchantId: string, now: Date): Promise<ReturnRates> {
  const { since, until } = returnRateWindow(now);
  return returnRates(await returnRateStore().days(merchantId, since, until), now);
}

/**
 * Recomputes a merchant's rates and, when the status differs from the one last announced (never
 * announced: `ok`), records the new one with its event, once: a run that loses the race to
 * another reads again.
 */
export async function refreshReturnRates(merchantId: string, now: Date): Promise<'changed' | 'unchanged'> {
  const store = returnRateStore();
  return withOptimisticRetry(async () => {
    const [state, rates] = await Promise.all([store.state(merchantId), merchantReturnRates(merchantId, now)]);
    if ((state?.status ?? 'ok') === rates.status) return 'unchanged';
    const event = returnRatesEvent(merchantId, rates, nextSequence(state?.eventSeq), now);
    if (!(await store.changeStatus(merchantId, state, rates, event, now))) return undefined;
    const log = needsAttention(rates.status) ? logger.warn.bind(logger) : logger.info.bind(logger);
    log('return rates status changed', {
      merchantId,
      from: state?.status ?? 'ok',
      to: rates.status,
      debitCount: rates.debitCount,
      unauthorized: rates.unauthorized.rate,
      administrative: rates.administrative.rate,
      overall: rates.overall.rate,
    });
    return 'changed';
  });
}

export interface ReturnRatesJobReport {
  /** The UTC day of the daily pass. */
  day: string;
  /** Merchants recomputed because a return moved their counts. */
  changedByReturns: number;
  /** Merchants recomputed by the daily pass in this run. */
  recomputed: number;
  /** Statuses that changed (and were announced). */
  statusChanges: number;
  /** Whether the day's pass has reached the end of the merchant list. */
  passDone: boolean;
  /** Merchants at `alert` or `over` after the run (the metric). */
  atAttention: number;
}

/** Merchants read from the list at a time. */
const MERCHANT_PAGE = 50;
/** Marked merchants read per run (the rest wait for the next). */
const MARKS_PER_RUN = 1000;

/** One run of the job, starting no merchant after `deadline` (epoch ms). */
export async function runReturnRatesJob(now: Date, deadline: number): Promise<ReturnRatesJobReport> {
  const store = returnRateStore();
  const day = returnRateWindow(now).until;
  const report: ReturnRatesJobReport = {
    day,
    changedByReturns: 0,
    recomputed: 0,
    statusChanges: 0,
    passDone: false,
    atAttention: 0,
  };
  const refresh = async (merchantId: string) => {
    if ((await refreshReturnRates(merchantId, now)) === 'changed') report.statusChanges++;
  };

  for (const mark of await store.changed(MARKS_PER_RUN)) {
    if (clock.nowMs() >= deadline) break;
    await refresh(mark.merchantId);
    await store.clearChanged(mark.merchantId, mark.at);
    report.changedByReturns++;
  }

  const stored = await store.cursor();
  let cursor = stored?.day === day ? stored : { day };
  while (!cursor.done && clock.nowMs() < deadline) {
    const page = await store.merchants(cursor.after, MERCHANT_PAGE);
    for (const merchantId of page) {
      if (clock.nowMs() >= deadline) break;
      await refresh(merchantId);
      report.recomputed++;
      cursor = { day, after: merchantId };
    }
    if (page.length < MERCHANT_PAGE && clock.nowMs() < deadline) cursor = { ...cursor, done: true };
    await store.advance(cursor);
  }
  report.passDone = cursor.done === true;
  report.atAttention = await store.attentionCount();
  logger.info('return rates job run', { ...report });
  return report;
}
