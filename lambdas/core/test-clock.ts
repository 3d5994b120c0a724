/**
 * The test clock (non-production; docs/decisions.md "Test clock"): a tester need not wait for the
 * settlement cut-off. `settleNow` settles a test merchant's approved sales at once: the processor
 * adapter settles them (its test hook), then each sale's recorded cut-off moves to that time and
 * the merchant's mark records the time the clock settled up to. `settlementOf` is the processing
 * state machine's CheckSettlement outside production: a processed group whose sales were all
 * processed before the mark goes on to its receipts at the next poll (SETTLEMENT_POLL_SECONDS,
 * at most a minute later).
 */
import type { SettleNowResult } from '#contract/schemas/test-clock';
import { paymentProcessor } from '#processor/index';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { ForbiddenError } from '#shared/errors';
import { logger } from '#shared/logger';
import { claimStore } from '#store/claims';
import { testClockStore } from '#store/test-clock';

/**
 * A sale's cut-off is at most one settlement period after it was processed; the window reaches a
 * little further back, for sales recorded Pending a while before their answer.
 */
const WINDOW_SLACK_SECONDS = 15 * 60;

export async function settleNow(merchantId: string, now: Date): Promise<SettleNowResult> {
  const processor = paymentProcessor();
  if (!processor.settleNow) {
    throw new ForbiddenError(`the ${config().processor} processor adapter has no test clock`);
  }
  const through = now.toISOString();
  const since = new Date(
    now.getTime() - (config().settlement.periodSeconds + WINDOW_SLACK_SECONDS) * 1000,
  ).toISOString();
  const store = testClockStore();
  const sales = await store.unsettledSales(merchantId, since, through);
  const { settledAt } = await processor.settleNow({
    merchantId,
    processorTransactionIds: sales.flatMap((s) => s.processorTransactionId ?? []),
  });
  const moved = await mapLimit(sales, 8, (sale) =>
    store.settle(sale.transactionId, sale.settlesAt!, settledAt),
  );
  await store.mark(merchantId, through);
  const settledCount = moved.filter(Boolean).length;
  logger.info('test clock settled sales', { merchantId, settledCount, settledAt });
  return { merchantId, settledAt, settledCount };
}

export interface SettlementCheck {
  settled: boolean;
  /** When to look again: the cut-off, or a minute from now when that is sooner. */
  checkAt: string;
}

/**
 * Whether a processed group's approved sales are settled: its latest cut-off has passed, or the
 * test clock settled its merchant's sales after the group completed (every sale of the group was
 * recorded before then).
 */
export async function settlementOf(
  state: { paymentGroupId: string; merchantId: string; settlesAt: string },
  now: Date,
): Promise<SettlementCheck> {
  const at = now.toISOString();
  if (at >= state.settlesAt) return { settled: true, checkAt: at };
  const through = await testClockStore().settledThrough(state.merchantId);
  if (through !== undefined) {
    const completed = (await claimStore().read(state.paymentGroupId))?.processingSummary?.processedAt;
    if (completed !== undefined && completed <= through) return { settled: true, checkAt: at };
  }
  const poll = new Date(now.getTime() + config().settlementPollSeconds * 1000).toISOString();
  return { settled: false, checkAt: poll < state.settlesAt ? poll : state.settlesAt };
}
