/**
 * State machine task AuthorizeBatch: charges the next batch of a group's payments through the
 * transactions core and writes each authResponse.
 *
 * Exactly once per payment: the sale's transaction id is derived from the paymentId and its
 * processor idempotency key is `payment:<paymentId>`, so a batch retried after a crash (even one
 * between the processor call and the write) finds the stored sale or gets the processor's first
 * answer back; the authResponse is written only if none is there yet.
 */
import { runSale } from '#core/sale';
import type { Payment } from '#domain/groups';
import { giveUpOnCharge } from '#core/unanswered';
import { countOutcome, saleAuthResponse, type AuthResponse, type ProcessingState } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { mapLimit, sleep } from '#shared/concurrency';
import { config } from '#shared/config';
import { transactionIdOf } from '#shared/ids';
import { isTransient } from '#shared/ddb';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { ProcessorUnavailableError } from '#processor/processor';
import { paymentStore } from '#store/payments';

// Derived from the paymentId (moved to shared/ids.ts: reconciliation maps processor keys with it too).
export { transactionIdOf };

const ATTEMPTS = 3;

const retryable = (error: unknown) => isTransient(error) || error instanceof ProcessorUnavailableError;

async function charge(payment: Payment, state: ProcessingState): Promise<AuthResponse> {
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
          // Retried with the same key first; the last attempt reverses and declines (96, category 2).
          onNoAnswer: attempt < ATTEMPTS ? 'throw' : 'reverse',
        },
        new Date(),
      );
      return saleAuthResponse(transactionView(txn, [], new Date()));
    } catch (error) {
      if (!retryable(error)) throw error;
      logger.warn('transient failure charging a payment', { paymentId: payment.paymentId, attempt, error });
      if (attempt >= ATTEMPTS) {
        const reason = `${(error as Error).name} after ${ATTEMPTS} attempts; not charged`;
        return giveUpOnCharge(payment, transactionIdOf(payment.paymentId), state.merchantId, reason);
      }
      await sleep(100 * 4 ** attempt);
    }
  }
}

export const handler = taskHandler(async (state: ProcessingState): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const store = paymentStore();
  const { payments, cursor } = await store.paymentsAfter(
    state.paymentGroupId,
    state.cursor,
    config().processBatchSize,
  );
  const totals = { ...state.totals };
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (payment.deleted || payment.authResponse) return payment;
    const authResponse = await charge(payment, state);
    if (await store.setAuthResponse(payment, authResponse, new Date())) return { ...payment, authResponse };
    return (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
  });
  for (const payment of handled) countOutcome(totals, payment);
  logger.info('batch authorized', { payments: payments.length, batch: state.batches + 1 });
  return { ...state, cursor, totals, batches: state.batches + 1 };
});
