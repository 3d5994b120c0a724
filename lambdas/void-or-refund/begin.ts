/**
 * State machine task BeginReversal: reads the group and continues only if its summary names this
 * run (the execution's generation, still running). A later run, or a run already done, makes this
 * execution end without touching a payment.
 */
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { groupOfRun } from '#core/void-or-refund-run';
import { noCounts, type ReversalInput, type ReversalState } from '#core/void-or-refund-state';
import { clock } from '#shared/clock';

export const handler = taskHandler(async (input: ReversalInput): Promise<ReversalState> => {
  logger.appendKeys({ paymentGroupId: input.paymentGroupId, merchantId: input.merchantId });
  const group = await groupOfRun(input.paymentGroupId);
  const summary = group?.voidOrRefundSummary;
  const proceed =
    group?.merchantId === input.merchantId &&
    summary?.generation === input.generation &&
    summary.status === 'running';
  if (!proceed) logger.info('void-or-refund run superseded or done', { generation: input.generation });
  return {
    paymentGroupId: input.paymentGroupId,
    merchantId: input.merchantId,
    generation: input.generation,
    proceed,
    executionArn: summary?.executionArn ?? '',
    startedAt: summary?.startedAt ?? clock.now().toISOString(),
    cursor: null,
    counts: noCounts(),
    batches: 0,
  };
});
