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
import { BATCH_RATE_WAIT_SECONDS } from '#contract/processing';
import { cursorAfter, paymentRangeStore } from '#store/payment-ranges';
import { merchantNameOf, recordFirstAnswer } from './attempts';
import { charge } from './charge';
import { paceWith, RateHeldError, RateTokens, type RateTokensOptions } from './processor-rate';
import { dueInRound, failRetry, retryPayment } from './retries';
import { giveUpOnCharge } from './unanswered';
import { clock } from '#shared/clock';

/** A batch answered: the state after it, and how many of its payments stayed unanswered. */
interface AnsweredBatch {
  next: BatchState;
  size: number;
  unanswered: number;
}

/** What `answer` gives a payment: its state after, undefined (unanswered), or HELD (no token in time). */
const HELD = Symbol('held');

/**
 * A group's first batch: the first of its first range (and again while that one was given back
 * with nothing done). It is PROCESS_FIRST_BATCH_SIZE payments charged in the rate's first lane.
 */
const isFirstBatch = (state: Pick<BatchState, 'cursor' | 'batches' | 'held'>): boolean =>
  state.cursor === null && (state.batches === 0 || state.held === true);

/** How many payments the batch after the state's cursor holds. */
const batchSizeOf = (state: Pick<BatchState, 'cursor' | 'batches' | 'held'>): number =>
  isFirstBatch(state)
    ? Math.min(config().processFirstBatchSize, config().processBatchSize)
    : config().processBatchSize;

/**
 * The one skeleton of the batch tasks: reads the batch after the state's cursor in its key range
 * (batchSizeOf payments) and gives each payment that needs an answer one: in a group's first
 * processing every payment neither deleted nor answered, in a retry round every payment whose
 * retry is due in it (core/retries.ts). `answer` answers it and records the answer
 * (PROCESS_CONCURRENCY at a time; undefined leaves it unanswered, HELD leaves it and every later
 * one of the batch to the next batch); then every payment up to the first held one is counted as
 * it stands, so a retried batch counts what an earlier try recorded, and the cursor stops there.
 */
async function answerBatch(
  state: BatchState,
  answer: (payment: Payment, toAnswer: number) => Promise<Payment | undefined | typeof HELD>,
): Promise<AnsweredBatch> {
  const { held: _held, ...rest } = state;
  const { payments, cursor } = await paymentRangeStore().paymentsIn(
    state.paymentGroupId,
    state.cursor,
    state.upTo ?? null,
    batchSizeOf(state),
  );
  const needsAnswer = (p: Payment) =>
    state.retry ? dueInRound(p, state.retry) : !p.deleted && !p.authResponse;
  const toAnswer = payments.filter(needsAnswer).length;
  let unanswered = 0;
  const handled = await mapLimit(payments, config().processConcurrency, async (payment) => {
    if (!needsAnswer(payment)) return payment;
    const after = await answer(payment, toAnswer);
    if (after === undefined) unanswered++;
    return after ?? payment;
  });
  const cut = handled.indexOf(HELD);
  const done = (cut < 0 ? handled : handled.slice(0, cut)) as Payment[];
  const totals = { ...state.totals };
  for (const payment of done) countOutcome(totals, payment, state.retry?.round);
  const next: BatchState =
    cut < 0
      ? { ...rest, cursor, totals, batches: state.batches + 1 }
      : {
          ...rest,
          cursor: cut === 0 ? state.cursor : cursorAfter(state.paymentGroupId, done[cut - 1]!.paymentId),
          totals,
          batches: state.batches + 1,
          held: true,
        };
  return { next, size: done.length, unanswered };
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
export async function authorizeBatch(
  state: BatchState,
  rate: Partial<RateTokensOptions> = {},
): Promise<BatchState> {
  // Once the processor has not answered, the batch's other charges would wait for it too: they
  // are left for the retry, so the task ends well within its timeout.
  let processorDown = false;
  const merchantName = merchantNameOf(state.merchantId);
  const began = (rate.now ?? clock.nowMs)();
  let tokens: RateTokens | undefined;
  const { next, size, unanswered } = await answerBatch(state, async (payment, toAnswer) => {
    tokens ??= new RateTokens({
      groupId: state.paymentGroupId,
      merchantId: state.merchantId,
      lane: isFirstBatch(state) ? 'first' : 'rest',
      need: toAnswer,
      deadline: began + BATCH_RATE_WAIT_SECONDS * 1000,
      ...rate,
    });
    const pace = paceWith(tokens);
    try {
      if (processorDown) throw new ProcessorUnavailableError('not tried: the processor is not answering');
      if (state.retry) return await retryPayment(payment, state, merchantName, pace);
      return await recordFirstAnswer(
        payment,
        await charge(payment, state, 1, undefined, pace),
        state,
        merchantName,
      );
    } catch (error) {
      if (error instanceof RateHeldError) return HELD;
      if (error instanceof ProcessorUnavailableError) processorDown = true;
      else logger.error('could not charge a payment', { paymentId: payment.paymentId, error });
      return undefined;
    }
  });
  if (unanswered > 0) {
    const message = `${unanswered} of ${size} payments of batch ${next.batches} not answered`;
    throw new BatchIncompleteError(processorDown ? 'ProcessorUnavailable' : 'BatchIncomplete', message);
  }
  if (next.held)
    logger.info("batch given back unfinished: the processor's rate was taken", {
      payments: size,
      batch: next.batches,
    });
  else
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
