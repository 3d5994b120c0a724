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
import { testClockStore } from '#store/test-clock';

/**
 * A sale's cut-off is at most one settlement period after it was processed; the window reaches a
 * little further back, for sales recorded Pending a while before their answer.
 */
const WINDOW_SLACK_SECONDS = 15 * 60;

export async function settleNow(
  merchantId: string,
  now: Date,
  maxSales = SETTLE_NOW_SALES,
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
  const unsettled = await store.unsettledSales(merchantId, since, through);
  const sales = unsettled.slice(0, maxSales);
  const more = unsettled.length > sales.length;
  const { settledAt } = await processor.settleNow({
    merchantId,
    processorTransactionIds: sales.flatMap((s) => s.processorTransactionId ?? []),
  });
  const moved = await mapLimit(sales, 8, (sale) =>
    store.settle(sale.transactionId, sale.settlesAt!, settledAt),
  );
  const settledCount = moved.filter(Boolean).length;
  // Sales left for the next call: the merchant's mark (which says every sale up to it is settled)
  // and the notices (a banking day sooner per completed call) wait for the call that settles the last.
  if (more) {
    logger.info('test clock settled sales, more left', { merchantId, settledCount, settledAt });
    return { merchantId, settledAt, settledCount, noticesBroughtForward: 0, more };
  }
  await store.mark(merchantId, through);
  // The notices due at the next cut-off (a debit's clearing or return), due now.
  const noticesBroughtForward = (await processor.noticesNow?.({ merchantId }))?.broughtForward ?? 0;
  logger.info('test clock settled sales', { merchantId, settledCount, settledAt, noticesBroughtForward });
  return { merchantId, settledAt, settledCount, noticesBroughtForward, more };
}
