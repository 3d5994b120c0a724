/**
 * State machine task FailBatch (after AuthorizeBatch ran out of retries; issue 13, defect 7): the
 * batch that failed gives up on its own unanswered payments, and processing goes on with the next
 * batch of its key range (the other ranges go on by themselves). Bounded by one batch: it reads the batch AuthorizeBatch read (from the same cursor, the
 * same size) and returns the cursor after it.
 *
 * Giving up needs no answer from the processor (it is often what failed): each payment's sale is
 * recorded Declined 96 first, so that a charge still in flight can no longer record an approval,
 * and marked for reversal, which the sweeper carries out under the payment's key (core/sale.ts
 * giveUpSale). A sale that was answered meanwhile (the sweeper settled it) is the payment's answer.
 */
import { giveUpOnCharge } from '#core/unanswered';
import { countOutcome, type BatchState } from '#domain/processing';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { transactionIdOf } from '#shared/ids';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { paymentRangeStore } from '#store/payment-ranges';
import { paymentStore } from '#store/payments';

export type FailedBatchState = BatchState & { error?: { Error?: string; Cause?: string } };

export const handler = taskHandler(async (state: FailedBatchState): Promise<BatchState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const store = paymentStore();
  const reason = state.error?.Error ?? 'processing error';
  const { payments, cursor } = await paymentRangeStore().paymentsIn(
    state.paymentGroupId,
    state.cursor,
    state.upTo ?? null,
    config().processBatchSize,
  );
  const totals = { ...state.totals };
  let givenUp = 0;
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (payment.deleted || payment.authResponse) return payment;
    givenUp++;
    const authResponse = await giveUpOnCharge(
      payment,
      transactionIdOf(payment.paymentId),
      state.merchantId,
      `${reason} after retries; not charged`,
      { reverse: 'later' },
    );
    if (await store.setAuthResponse(payment, authResponse, new Date())) return { ...payment, authResponse };
    return (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
  });
  for (const payment of handled) countOutcome(totals, payment);
  logger.error('a batch failed after its retries: its unanswered payments are given up', {
    error: state.error,
    batch: state.batches + 1,
    givenUp,
  });
  const { error: _error, ...rest } = state;
  return { ...rest, cursor, totals, batches: state.batches + 1 };
});
