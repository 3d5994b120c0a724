/**
 * State machine task AuthorizeBatch: charges the next batch of a key range of a group's payments
 * (one iteration of the state machine's Map) through the transactions core and writes each
 * authResponse.
 *
 * Exactly once per payment: the sale's transaction id is derived from the paymentId and its
 * processor idempotency key is `payment:<paymentId>`, so a batch retried after a crash (even one
 * between the processor call and the write) finds the stored sale or gets the processor's first
 * answer back; the authResponse is written only if none is there yet.
 *
 * Never gives up on a payment itself: a payment whose charge fails stays
 * unanswered (its sale Pending, which the sweeper may settle meanwhile) while the batch's other
 * payments are answered; then the task fails, `ProcessorUnavailable` when the processor did not
 * answer (the state machine waits with a long bounded backoff: an outage of minutes costs no
 * payment), `BatchIncomplete` otherwise. Only after those retries does FailBatch give up, and only
 * on this batch's unanswered payments. The batch itself is core/batches.ts.
 */
import { authorizeBatch } from '#core/batches';
import type { BatchState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (state: BatchState): Promise<BatchState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  return authorizeBatch(state);
});
