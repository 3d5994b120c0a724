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
 * Never gives up on a payment itself (issue 13, defect 7): a payment whose charge fails stays
 * unanswered (its sale Pending, which the sweeper may settle meanwhile) while the batch's other
 * payments are answered; then the task fails, `ProcessorUnavailable` when the processor did not
 * answer (the state machine waits with a long bounded backoff: an outage of minutes costs no
 * payment), `BatchIncomplete` otherwise. Only after those retries does FailBatch give up, and only
 * on this batch's unanswered payments.
 */
import { runSale } from '#core/sale';
import type { Payment } from '#domain/groups';
import { countOutcome, saleAuthResponse, type AuthResponse, type BatchState } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { mapLimit, sleep } from '#shared/concurrency';
import { config } from '#shared/config';
import { transactionIdOf } from '#shared/ids';
import { isTransient } from '#shared/ddb';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { ProcessorUnavailableError } from '#processor/processor';
import { paymentRangeStore } from '#store/payment-ranges';
import { paymentStore } from '#store/payments';

// Derived from the paymentId (moved to shared/ids.ts: reconciliation maps processor keys with it too).
export { transactionIdOf };

const ATTEMPTS = 3;

const retryable = (error: unknown) => isTransient(error) || error instanceof ProcessorUnavailableError;

/** The batch left payments unanswered; the name is what the state machine's Retry matches. */
export class BatchIncompleteError extends Error {
  constructor(
    override readonly name: 'ProcessorUnavailable' | 'BatchIncomplete',
    message: string,
  ) {
    super(message);
  }
}

/** The sale's answer, with quick retries under the same key; throws when there is none. */
async function charge(payment: Payment, state: BatchState): Promise<AuthResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      const txn = await runSale(
        {
          transactionId: transactionIdOf(payment.paymentId),
          processorKey: `payment:${payment.paymentId}`,
          merchantId: state.merchantId,
          profileId: payment.profileId,
          amountCents: payment.amountCents,
          allowPartial: payment.allowPartial ?? state.allowPartial,
          orderId: payment.orderId,
          paymentId: payment.paymentId,
          missingMethod: 'decline',
          // No answer leaves the sale Pending: the state machine retries the batch later.
          onNoAnswer: 'throw',
        },
        new Date(),
      );
      return saleAuthResponse(transactionView(txn, [], new Date()));
    } catch (error) {
      if (!retryable(error) || attempt >= ATTEMPTS) throw error;
      logger.warn('transient failure charging a payment', { paymentId: payment.paymentId, attempt, error });
      await sleep(100 * 4 ** attempt);
    }
  }
}

export const handler = taskHandler(async (state: BatchState): Promise<BatchState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const store = paymentStore();
  const { payments, cursor } = await paymentRangeStore().paymentsIn(
    state.paymentGroupId,
    state.cursor,
    state.upTo ?? null,
    config().processBatchSize,
  );
  const totals = { ...state.totals };
  let unanswered = 0;
  // Once the processor has not answered, the batch's other charges would wait for it too: they
  // are left for the retry, so the task ends well within its timeout.
  let processorDown = false;
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (payment.deleted || payment.authResponse) return payment;
    let authResponse: AuthResponse;
    try {
      if (processorDown) throw new ProcessorUnavailableError('not tried: the processor is not answering');
      authResponse = await charge(payment, state);
    } catch (error) {
      unanswered++;
      if (error instanceof ProcessorUnavailableError) processorDown = true;
      else logger.error('could not charge a payment', { paymentId: payment.paymentId, error });
      return payment;
    }
    if (await store.setAuthResponse(payment, authResponse, new Date())) return { ...payment, authResponse };
    return (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
  });
  if (unanswered > 0) {
    const message = `${unanswered} of ${payments.length} payments of batch ${state.batches + 1} not answered`;
    throw new BatchIncompleteError(processorDown ? 'ProcessorUnavailable' : 'BatchIncomplete', message);
  }
  for (const payment of handled) countOutcome(totals, payment);
  logger.info('batch authorized', { payments: payments.length, batch: state.batches + 1 });
  return { ...state, cursor, totals, batches: state.batches + 1 };
});
