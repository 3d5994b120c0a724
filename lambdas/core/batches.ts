/**
 * The batch tasks of the processing state machine (AuthorizeBatch, FailBatch), one skeleton for
 * both: a batch is the next PROCESS_BATCH_SIZE payments of a key range (store/payment-ranges.ts);
 * each payment still unanswered gets an answer, recorded once; the outcomes are counted into the
 * range's totals and the range's cursor moves past the batch.
 */
import type { Payment } from '#domain/groups';
import { countOutcome, type BatchState } from '#domain/processing';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { ProcessorUnavailableError } from '#processor/processor';
import { paymentRangeStore } from '#store/payment-ranges';
import { merchantNameOf, recordFirstAnswer } from './attempts';
import { charge } from './charge';
import { dueInRound, failRetry, retryPayment } from './retries';
import { giveUpOnCharge } from './unanswered';

/** A batch answered: the state after it, and how many of its payments stayed unanswered. */
interface AnsweredBatch {
  next: BatchState;
  size: number;
  unanswered: number;
}

/**
 * The one skeleton of the batch tasks: reads the batch after the state's cursor in its key range
 * (PROCESS_BATCH_SIZE payments) and gives each payment that needs an answer one: in a group's
 * first processing every payment neither deleted nor answered, in a retry round every payment
 * whose retry is due in it (core/retries.ts). `answer` answers it and records the answer
 * (PROCESS_CONCURRENCY at a time; undefined leaves it unanswered); then every payment of the batch
 * is counted as it stands, so a retried batch counts what an earlier try recorded.
 */
async function answerBatch(
  state: BatchState,
  answer: (payment: Payment) => Promise<Payment | undefined>,
): Promise<AnsweredBatch> {
  const { payments, cursor } = await paymentRangeStore().paymentsIn(
    state.paymentGroupId,
    state.cursor,
    state.upTo ?? null,
    config().processBatchSize,
  );
  const needsAnswer = (p: Payment) =>
    state.retry ? dueInRound(p, state.retry) : !p.deleted && !p.authResponse;
  let unanswered = 0;
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (!needsAnswer(payment)) return payment;
    const after = await answer(payment);
    if (!after) unanswered++;
    return after ?? payment;
  });
  const totals = { ...state.totals };
  for (const payment of handled) countOutcome(totals, payment, state.retry?.round);
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

/**
 * AuthorizeBatch: charges the batch's payments through the transactions core and records each
 * answer (a first charge, or in a retry round each due retry); throws BatchIncompleteError when
 * any stayed unanswered (the others are recorded).
 */
export async function authorizeBatch(state: BatchState): Promise<BatchState> {
  // Once the processor has not answered, the batch's other charges would wait for it too: they
  // are left for the retry, so the task ends well within its timeout.
  let processorDown = false;
  const merchantName = merchantNameOf(state.merchantId);
  const { next, size, unanswered } = await answerBatch(state, async (payment) => {
    try {
      if (processorDown) throw new ProcessorUnavailableError('not tried: the processor is not answering');
      if (state.retry) return await retryPayment(payment, state, merchantName);
      return await recordFirstAnswer(payment, await charge(payment, state), state, merchantName);
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
  logger.info('batch authorized', { payments: size, batch: next.batches, retryRound: state.retry?.round });
  return next;
}

/**
 * FailBatch: gives up on the batch's unanswered payments (`reason`: the error AuthorizeBatch
 * ended with): each sale (of its first charge, or of its due retry) recorded Declined 96 and
 * marked for the sweeper's reversal.
 */
export async function giveUpBatch(
  state: BatchState,
  reason: string,
): Promise<{ next: BatchState; givenUp: number }> {
  let givenUp = 0;
  const merchantName = merchantNameOf(state.merchantId);
  const { next } = await answerBatch(state, async (payment) => {
    givenUp++;
    const why = `${reason} after retries; not charged`;
    if (state.retry) return failRetry(payment, state, why, merchantName);
    const result = await giveUpOnCharge(payment, 1, state.merchantId, why, { reverse: 'later' });
    return recordFirstAnswer(payment, result, state, merchantName);
  });
  return { next, givenUp };
}
