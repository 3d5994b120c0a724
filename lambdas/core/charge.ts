/**
 * The charge of one attempt of a scheduled payment through the transactions core (core/sale.ts):
 * its own transaction id and processor key per attempt (shared/ids.ts, domain/processor-keys.ts),
 * quick retries under the
 * same key, no answer left Pending for the state machine's retry.
 */
import type { Payment } from '#domain/groups';
import { saleAuthResponse, type BatchState } from '#domain/processing';
import { processorKeys } from '#domain/processor-keys';
import { transactionView } from '#domain/transactions';
import { withBackoff } from '#shared/backoff';
import { isTransient } from '#shared/ddb';
import { attemptTransactionId } from '#shared/ids';
import { logger } from '#shared/logger';
import { ProcessorUnavailableError } from '#processor/processor';
import type { AttemptResult } from './attempts';
import { runSale } from './sale';
import { clock } from '#shared/clock';

const retryable = (error: unknown) => isTransient(error) || error instanceof ProcessorUnavailableError;

/**
 * The sale of a payment's attempt (its own transaction id and processor key), with quick retries
 * under the same key; throws when there is none. `pace` is awaited before each call that may reach
 * the processor (the processor's rate, core/processor-rate.ts); what it throws ends the charge.
 */
export async function charge(
  payment: Payment,
  state: BatchState,
  attempt = 1,
  cardUseAt?: string,
  pace?: () => Promise<void>,
): Promise<AttemptResult> {
  return withBackoff(
    async () => {
      await pace?.();
      const txn = await runSale(
        {
          transactionId: attemptTransactionId(payment.paymentId, attempt),
          processorKey: processorKeys.payment(payment.paymentId, attempt),
          merchantId: state.merchantId,
          profileId: payment.profileId,
          amountCents: payment.amountCents,
          allowPartial: payment.allowPartial ?? state.allowPartial,
          orderId: payment.orderId,
          ...(payment.sponsorKey !== undefined && { sponsorKey: payment.sponsorKey }),
          paymentId: payment.paymentId,
          paymentGroupId: payment.paymentGroupId,
          attempt,
          ...(cardUseAt !== undefined && { cardUseAt }),
          missingMethod: 'decline',
          // No answer leaves the sale Pending: the state machine retries the batch later.
          onNoAnswer: 'throw',
        },
        clock.now(),
      );
      return { auth: saleAuthResponse(transactionView(txn, [], clock.now())), txn };
    },
    {
      attempts: 3,
      firstMs: 400,
      factor: 4,
      retryable,
      onRetry: (error, n) =>
        logger.warn('transient failure charging a payment', {
          paymentId: payment.paymentId,
          attempt: n,
          error,
        }),
    },
  );
}
