/**
 * The test clock (non-production; docs/decisions.md "Test clock"): a tester need not wait for the
 * settlement cut-off. `settleNow` settles a test merchant's approved sales at once: the processor
 * adapter settles them (its test hook), then each sale's recorded cut-off moves to that time and
 * the merchant's mark records the time the clock settled up to, which processing's
 * CheckSettlement reads (core/settlement.ts).
 */
import { SETTLE_NOW_SALES } from '#contract/limits';
import type { SettleNowResult } from '#contract/schemas/test-clock';
import { paymentProcessor } from '#core/processor';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { ForbiddenError } from '#shared/errors';
import { logger } from '#shared/logger';
import { salePosition, testClockStore } from '#store/test-clock';

/**
 * A sale's cut-off is at most one settlement period after it was processed; the window reaches a
 * little further back, for sales recorded Pending a while before their answer.
 */
const WINDOW_SLACK_SECONDS = 15 * 60;

/**
 * Settles the merchant's approved, unsettled sales of the last settlement period now, at most
 * `maxSales` a call, reading about `readBudget` entries of the day index a call (every merchant's
 * sales are on it): a window with more is worked through by a run of calls (`more` until the
 * last), each going on where the one before stopped reading. The run's last call marks the
 * merchant settled through the time of the run's first call, and brings its notices forward. A
 * sale answered during a run behind where the run had read (Pending then) is not settled by it;
 * its group completed after the run began, past the mark; the next call (a new run) reads the
 * window again and settles it.
 */
export async function settleNow(
  merchantId: string,
  now: Date,
  maxSales = SETTLE_NOW_SALES,
  readBudget?: number,
): Promise<SettleNowResult> {
  const processor = paymentProcessor();
  if (!processor.settleNow) {
    throw new ForbiddenError(`the ${config().processor} processor adapter has no test clock`);
  }
  const through = now.toISOString();
  const since = new Date(
    now.getTime() - (config().settlement.periodSeconds + WINDOW_SLACK_SECONDS) * 1000,
  ).toISOString();
  const store = testClockStore();
  // A run under way goes on (one begun before the window is over: a new one starts).
  const under = await store.run(merchantId);
  const run = under !== undefined && under.startedAt >= since ? under : undefined;
  const startedAt = run?.startedAt ?? through;
  const read = await store.unsettledSales(
    merchantId,
    { since, ...(run && { from: run.readThrough }), until: through },
    readBudget,
  );
  const sales = read.sales.slice(0, maxSales);
  const readThrough = read.sales.length > sales.length ? salePosition(sales.at(-1)!) : read.readThrough;
  const { settledAt } = await processor.settleNow({
    merchantId,
    processorTransactionIds: sales.flatMap((s) => s.processorTransactionId ?? []),
  });
  const moved = await mapLimit(sales, 8, (sale) =>
    store.settle(sale.transactionId, sale.settlesAt!, settledAt),
  );
  const settledCount = moved.filter(Boolean).length;
  // More to read: the merchant's mark (which says every sale up to it is settled) and the notices
  // (a banking day sooner per completed run) wait for the call that reads the last.
  if (readThrough !== undefined) {
    await store.saveRun(merchantId, { startedAt, readThrough });
    logger.info('test clock settled sales, more left', { merchantId, settledCount, settledAt });
    return { merchantId, settledAt, settledCount, noticesBroughtForward: 0, more: true };
  }
  await store.mark(merchantId, startedAt);
  // The notices due at the next cut-off (a debit's clearing or return), due now.
  const noticesBroughtForward = (await processor.noticesNow?.({ merchantId }))?.broughtForward ?? 0;
  logger.info('test clock settled sales', { merchantId, settledCount, settledAt, noticesBroughtForward });
  return { merchantId, settledAt, settledCount, noticesBroughtForward, more: false };
}
