import { settlementOf, type SettlementCheck } from '#core/settlement';
import type { ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

/**
 * State machine task CheckSettlement (outside production, instead of the plain Wait): are the
 * group's approved sales settled (the cut-off passed, or the test clock settled them), and if
 * not, when to look again (at most a minute later). Its answer goes to `$.settlement`.
 */
export const handler = taskHandler(async (state: ProcessingState): Promise<SettlementCheck> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const settlesAt = state.totals.settlesAt;
  // AnyApproved routes here only with a cut-off; without one there is nothing to wait for.
  if (settlesAt === null) return { settled: true, checkAt: clock.now().toISOString() };
  return settlementOf({ ...state, settlesAt }, clock.now());
});
