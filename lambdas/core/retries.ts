/**
 * A retry round's charges (docs/architecture.md#retry-rounds): what the batches of a round's
 * execution do to each payment whose retry is due in it. In order, nothing charged until the
 * last step:
 *
 * 1. the payment or its group deleted since, its method deleted or unusable: the retry is
 *    cancelled (`not_retried` with the reason), announced by `payment.updated`;
 * 2. the previous attempt's timeout reversal, if the sweeper has not confirmed it yet, is made
 *    now (a new charge never runs beside an old one that may still hold money);
 * 3. admission under the networks' limits: the retry's entry is written in the card's history
 *    first (pending), then the history is read and counted with it; a retry that would pass a
 *    limit is not made (its entry goes). Concurrent retries of one card each see the others;
 * 4. the charge, through the transactions core with the attempt's own transaction id and
 *    processor key (`payment:<paymentId>:<attempt>`): a repeated step finds the same sale, or the
 *    processor's first answer;
 * 5. the answer recorded once with the retry it decides (core/attempts.ts).
 *
 * A step repeated after a crash finds what the earlier try did: the attempt's sale (steps 2-3 are
 * skipped once it exists), its history entry (the same key), the recorded answer.
 */
import { attemptsOf, type Payment } from '#domain/groups';
import { parseProfileId } from '#domain/payors';
import type { BatchState, RetryRun } from '#domain/processing';
import {
  admitRetry,
  historyHours,
  retryCancelled,
  reversedByMerchant,
  slotAt,
  type PaymentRetry,
} from '#domain/retries';
import type { SavedMethod } from '#domain/payors';
import { attemptTransactionId } from '#shared/ids';
import { logger } from '#shared/logger';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { cardHistory } from '#store/card-history';
import { methodStore } from '#store/methods';
import { paymentStore, type RetryWriteOutcome } from '#store/payments';
import { transactionStore } from '#store/transactions';
import { answerRecord, type AttemptResult } from './attempts';
import { charge } from './charge';
import { cardKeyOf, reverseSaleKey } from './sale';
import { giveUpOnCharge } from './unanswered';
import { clock } from '#shared/clock';

const HOUR_MS = 3_600_000;

/** Lost races on the payment (a change announced between read and write) before a write gives up. */
const WRITE_ATTEMPTS = 5;

type MerchantName = () => Promise<string>;

/** Whether the payment waits for a retry that this round runs, and has not had it in this round. */
export function dueInRound(payment: Payment, run: RetryRun): boolean {
  const retry = payment.retry;
  if (retry?.status !== 'scheduled' || retry.nextAttemptAt === undefined) return false;
  if (!run.groupDeleted && slotAt(retry.nextAttemptAt) > run.bound) return false;
  return attemptsOf(payment).at(-1)?.round !== run.round;
}

/** The attempt a payment's due retry is. */
const nextAttempt = (payment: Payment): number => attemptsOf(payment).length + 1;

/**
 * A method a retry may charge: present, and not closed or waiting for the cardholder (the card
 * lifecycle's `status`; a method without one is active).
 */
const methodUsable = (method: Pick<SavedMethod, 'savedPaymentMethodId'> & { status?: string }) =>
  method.status === undefined || method.status === 'active';

/**
 * Writes on the payment as it is now while it still waits for attempt `attempt` (its retry
 * scheduled, the attempts before it recorded): the payment after, or as found once it no longer
 * waits (another try recorded it first).
 */
async function whileWaiting(
  payment: Payment,
  attempt: number,
  write: (current: Payment) => Promise<RetryWriteOutcome>,
  after: (current: Payment) => Payment,
): Promise<Payment> {
  const store = paymentStore();
  let current = payment;
  return withOptimisticRetry(
    async () => {
      if (current.retry?.status !== 'scheduled' || attemptsOf(current).length !== attempt - 1) return current;
      if ((await write(current)) === 'ok') return after(current);
      current = (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? current;
      return undefined;
    },
    { attempts: WRITE_ATTEMPTS, resource: `the retry of payment ${payment.paymentId}` },
  );
}

/** Cancels the payment's scheduled retry: nothing is charged. */
function cancel(payment: Payment, retry: PaymentRetry): Promise<Payment> {
  logger.info('retry not made', { paymentId: payment.paymentId, reason: retry.reason, detail: retry.detail });
  return whileWaiting(
    payment,
    nextAttempt(payment),
    (current) => paymentStore().cancelRetry(current, retry, clock.now()),
    (current) => ({ ...current, retry, eventSeq: (current.eventSeq ?? 0) + 1 }),
  );
}

/** Records attempt `attempt`'s answer and the retry it decides. */
async function recordRetry(
  payment: Payment,
  result: AttemptResult,
  attempt: number,
  state: BatchState,
  merchantName: MerchantName,
): Promise<Payment> {
  const record = await answerRecord(payment, result, attempt, state, merchantName);
  return whileWaiting(
    payment,
    attempt,
    (current) => paymentStore().recordRetryAnswer(current, result.auth, record, clock.now()),
    (current) => {
      const answered: Payment = {
        ...current,
        authResponse: result.auth,
        attempts: [...attemptsOf(current), record.attempt],
      };
      if (record.retry) answered.retry = record.retry;
      else delete answered.retry;
      return answered;
    },
  );
}

/**
 * The previous attempt's sale given up on (Failed) may still wait for its timeout reversal (the
 * sweeper's): made now, before the next charge. ProcessorUnavailableError leaves the payment
 * unanswered in this batch (the state machine retries it).
 */
async function reversePrevious(payment: Payment, attempt: number): Promise<void> {
  const previous = await transactionStore().find(attemptTransactionId(payment.paymentId, attempt - 1));
  const txn = previous?.transaction;
  if (!txn?.reversalDue || !txn.processorKey) return;
  await reverseSaleKey(txn);
  await transactionStore().reversalDone(txn.transactionId);
}

/** Admission under the networks' limits (step 3 above): the limit passed, if any. */
async function admit(
  method: SavedMethod,
  transactionId: string,
  run: RetryRun,
  merchantId: string,
  now: Date,
): Promise<PaymentRetry | undefined> {
  const history = cardHistory();
  const cardKey = cardKeyOf(method);
  const entry = {
    merchantId,
    cardKey,
    at: run.startedAt,
    transactionId,
    outcome: 'pending' as const,
    retry: true,
  };
  await history.reserve(entry);
  const since = new Date(now.getTime() - historyHours(method.accountType) * HOUR_MS).toISOString();
  const refused = admitRetry(method.accountType, await history.since(merchantId, cardKey, since), now);
  if (refused) await history.release(entry);
  return refused;
}

/**
 * Retries one payment whose retry is due in the state's round (steps 1-5 above): the payment as
 * it is after. Throws when the charge got no answer (the batch leaves it unanswered).
 */
export async function retryPayment(
  payment: Payment,
  state: BatchState,
  merchantName: MerchantName,
  pace?: () => Promise<void>,
): Promise<Payment> {
  const run = state.retry!;
  const attempt = nextAttempt(payment);
  if (payment.deleted)
    return cancel(payment, retryCancelled('payment_deleted', 'the payment was deleted before its retry'));
  if (run.groupDeleted)
    return cancel(payment, retryCancelled('group_deleted', 'the group was deleted before the retry'));
  const reversed = reversedByMerchant(payment);
  if (reversed) return cancel(payment, reversed);
  // The policy as it is now (the group's own, else the merchant's, read when the round began): a
  // merchant who lowered maxRetries or turned retries off stops the retries already scheduled.
  const allowed = state.retryPolicy?.maxRetries;
  if (allowed !== undefined && attempt - 1 > allowed)
    return cancel(
      payment,
      retryCancelled(
        'policy_exhausted',
        `the retry policy now allows ${allowed} retr${allowed === 1 ? 'y' : 'ies'}`,
      ),
    );
  const { payorId, savedPaymentMethodId } = parseProfileId(payment.profileId);
  const method = await methodStore().findMethod(payorId, savedPaymentMethodId, state.merchantId);
  if (!method || !methodUsable(method as SavedMethod & { status?: string }))
    return cancel(
      payment,
      retryCancelled(
        'method_unusable',
        method
          ? `the payment method is ${(method as { status?: string }).status ?? 'unusable'}`
          : 'the payment method was deleted',
      ),
    );
  const transactionId = attemptTransactionId(payment.paymentId, attempt);
  if (!(await transactionStore().find(transactionId))) {
    await reversePrevious(payment, attempt);
    const refused = await admit(method, transactionId, run, state.merchantId, clock.now());
    if (refused) return cancel(payment, refused);
  }
  const result = await charge(payment, state, attempt, run.startedAt, pace);
  return recordRetry(payment, result, attempt, state, merchantName);
}

/**
 * FailBatch in a retry round: the due retry's sale given up on (Declined 96, reversed later by
 * the sweeper) and its Failed answer recorded with the retry it decides.
 */
export async function failRetry(
  payment: Payment,
  state: BatchState,
  reason: string,
  merchantName: MerchantName,
): Promise<Payment> {
  const attempt = nextAttempt(payment);
  const result = await giveUpOnCharge(payment, attempt, state.merchantId, reason, { reverse: 'later' });
  return recordRetry(payment, result, attempt, state, merchantName);
}
