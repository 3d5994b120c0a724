/**
 * State machine task FailBatch (after AuthorizeBatch ran out of retries): the
 * batch that failed gives up on its own unanswered payments, and processing goes on with the next
 * batch of its key range (the other ranges go on by themselves). Bounded by one batch: it reads the batch AuthorizeBatch read (from the same cursor, the
 * same size) and returns the cursor after it.
 *
 * Giving up needs no answer from the processor (it is often what failed): each payment's sale is
 * recorded Declined 96 first, so that a charge still in flight can no longer record an approval,
 * and marked for reversal, which the sweeper carries out under the payment's key (core/sale.ts
 * giveUpSale). A sale that was answered meanwhile (the sweeper settled it) is the payment's answer.
 */
import { giveUpBatch } from '#core/batches';
import type { BatchState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export type FailedBatchState = BatchState & { error?: { Error?: string; Cause?: string } };

export const handler = taskHandler(async (state: FailedBatchState): Promise<BatchState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const { error, ...rest } = state;
  const { next, givenUp } = await giveUpBatch(rest, error?.Error ?? 'processing error');
  logger.error('a batch failed after its retries: its unanswered payments are given up', {
    error,
    batch: next.batches,
    givenUp,
  });
  return next;
});
