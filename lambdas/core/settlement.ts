/**
 * Processing's CheckSettlement outside production (docs/decisions.md "Test clock"): a processed
 * group whose sales were all recorded before its merchant's test-clock mark goes on to its
 * receipts at the next poll (SETTLEMENT_POLL_SECONDS, at most a minute later). Kept apart from
 * core/test-clock.ts so that the task's bundle holds no processor code.
 */
import { config } from '#shared/config';
import { claimStore } from '#store/claims';
import { testClockStore } from '#store/test-clock';

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
