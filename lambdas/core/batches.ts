/**
 * The batch tasks of the processing state machine (AuthorizeBatch, FailBatch), one skeleton for
 * both: a batch is the next PROCESS_BATCH_SIZE payments of a key range (store/payment-ranges.ts);
 * each payment still unanswered gets an answer, recorded once; the outcomes are counted into the
 * range's totals and the range's cursor moves past the batch.
 */
import type { Payment } from '#domain/groups';
import { countOutcome, saleAuthResponse, type AuthResponse, type BatchState } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { withBackoff } from '#shared/backoff';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { isTransient } from '#shared/ddb';
import { transactionIdOf } from '#shared/ids';
import { logger } from '#shared/logger';
import { ProcessorUnavailableError } from '#processor/processor';
import { paymentRangeStore } from '#store/payment-ranges';
import { paymentStore } from '#store/payments';
import { runSale } from './sale';
import { giveUpOnCharge } from './unanswered';

/** A batch answered: the state after it, and how many of its payments stayed unanswered. */
interface AnsweredBatch {
  next: BatchState;
  size: number;
  unanswered: number;
}

/**
 * The one skeleton of the batch tasks: reads the batch after the state's cursor in its key range
 * (PROCESS_BATCH_SIZE payments), gives each payment that is neither deleted nor answered the
 * answer of `answer` (PROCESS_CONCURRENCY at a time; undefined leaves it unanswered), records it
 * unless a concurrent run recorded one first (that one counts then), and counts the outcomes.
 */
async function answerBatch(
  state: BatchState,
  answer: (payment: Payment) => Promise<AuthResponse | undefined>,
): Promise<AnsweredBatch> {
  const store = paymentStore();
  const { payments, cursor } = await paymentRangeStore().paymentsIn(
    state.paymentGroupId,
    state.cursor,
    state.upTo ?? null,
    config().processBatchSize,
  );
  let unanswered = 0;
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (payment.deleted || payment.authResponse) return payment;
    const authResponse = await answer(payment);
    if (!authResponse) {
      unanswered++;
      return payment;
    }
    if (await store.setAuthResponse(payment, authResponse, new Date())) return { ...payment, authResponse };
    return (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
  });
  const totals = { ...state.totals };
  for (const payment of handled) countOutcome(totals, payment);
  return {
    next: { ...state, cursor, totals, batches: state.batches + 1 },
    size: payments.length,
    unanswered,
  };
}

/** The batch left payments unanswered; the name is what the state machine's Retry matches. */
class BatchIncompleteError extends Error {
  constructor(
    override readonly name: 'ProcessorUnavailable' | 'BatchIncomplete',
    message: string,
  ) {
    super(message);
  }
}

const retryable = (error: unknown) => isTransient(error) || error instanceof ProcessorUnavailableError;

/** The sale's answer, with quick retries under the same key; throws when there is none. */
async function charge(payment: Payment, state: BatchState): Promise<AuthResponse> {
  return withBackoff(
    async () => {
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
    },
    {
      attempts: 3,
      firstMs: 400,
      factor: 4,
      retryable,
      onRetry: (error, attempt) =>
        logger.warn('transient failure charging a payment', { paymentId: payment.paymentId, attempt, error }),
    },
  );
}

/**
 * AuthorizeBatch: charges the batch's payments through the transactions core and records each
 * authResponse; throws BatchIncompleteError when any stayed unanswered (the others are recorded).
 */
export async function authorizeBatch(state: BatchState): Promise<BatchState> {
  // Once the processor has not answered, the batch's other charges would wait for it too: they
  // are left for the retry, so the task ends well within its timeout.
  let processorDown = false;
  const { next, size, unanswered } = await answerBatch(state, async (payment) => {
    try {
      if (processorDown) throw new ProcessorUnavailableError('not tried: the processor is not answering');
      return await charge(payment, state);
    } catch (error) {
      if (error instanceof ProcessorUnavailableError) processorDown = true;
      else logger.error('could not charge a payment', { paymentId: payment.paymentId, error });
      return undefined;
    }
  });
  if (unanswered > 0) {
    const message = `${unanswered} of ${size} payments of batch ${next.batches} not answered`;
    throw new BatchIncompleteError(processorDown ? 'ProcessorUnavailable' : 'BatchIncomplete', message);
  }
  logger.info('batch authorized', { payments: size, batch: next.batches });
  return next;
}

/**
 * FailBatch: gives up on the batch's unanswered payments (`reason`: the error AuthorizeBatch
 * ended with): each sale recorded Declined 96 and marked for the sweeper's reversal.
 */
export async function giveUpBatch(
  state: BatchState,
  reason: string,
): Promise<{ next: BatchState; givenUp: number }> {
  let givenUp = 0;
  const { next } = await answerBatch(state, (payment) => {
    givenUp++;
    return giveUpOnCharge(
      payment,
      transactionIdOf(payment.paymentId),
      state.merchantId,
      `${reason} after retries; not charged`,
      { reverse: 'later' },
    );
  });
  return { next, givenUp };
}
