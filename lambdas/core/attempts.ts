/**
 * Recording an attempt's answer on its scheduled payment (the first charge or a retry): the retry
 * it decides under the group's policy and the networks' limits (domain/retries.ts, over the
 * card's history: store/card-history.ts), the payor's decline notice when the payment asks for
 * one, and the events, all in the one write of the answer (store/payments.ts).
 */
import { attemptOf, type Payment } from '#domain/groups';
import { declineOutboxId, type OutboxItem } from '#domain/notifications';
import { parseProfileId } from '#domain/payors';
import type { AuthResponse, BatchState } from '#domain/processing';
import {
  decideRetry,
  historyHours,
  NO_RETRIES,
  type PaymentRetry,
  type RetryDecisionInput,
} from '#domain/retries';
import type { Transaction } from '#domain/transactions';
import { cardHistory } from '#store/card-history';
import { paymentStore, type AnswerRecord } from '#store/payments';
import { findMerchant } from './merchants';
import { emailsOf } from './payors';
import { clock } from '#shared/clock';

/** An attempt's answer, and its sale when it has one (a Failed answer may not). */
export interface AttemptResult {
  auth: AuthResponse;
  txn?: Transaction;
}

const HOUR_MS = 3_600_000;

/**
 * The retry an answer decides. The card's history is read only when the decision gets as far as
 * the network limits (a retry the policy would schedule).
 */
export async function retryDecision(
  payment: Payment,
  result: AttemptResult,
  attempt: number,
  state: Pick<BatchState, 'merchantId' | 'retryPolicy' | 'retry'>,
): Promise<PaymentRetry | undefined> {
  const { auth, txn } = result;
  // A retry round runs for its slot: the next retry counts from the later of the answer and that
  // slot. In the cloud they are the same hour; a round run ahead of its hour (a non-production
  // tick or retry-now, "as its slot would") once scheduled the next retry inside the slot it ran
  // for, and a repeated tick of that slot charged it at once.
  // (`bound` is a slot, `2030-06-03T14`; retry-now's runs every retry and counts from the answer.)
  const slot = state.retry ? Date.parse(`${state.retry.bound}:00:00Z`) : Number.NaN;
  const answered = Date.parse(auth.processedAt);
  const at = new Date(
    Number.isFinite(slot) && slot < Date.UTC(9999, 0) ? Math.max(answered, slot) : answered,
  );
  const input: RetryDecisionInput = {
    policy: state.retryPolicy ?? NO_RETRIES,
    attempt,
    answer: {
      status: auth.status,
      responseCode: auth.responseCode,
      ...(auth.declineCategory !== undefined && { declineCategory: auth.declineCategory }),
      ...(auth.merchantAdviceCode !== undefined && { merchantAdviceCode: auth.merchantAdviceCode }),
    },
    accountType: txn?.accountType ?? auth.accountType,
    history: [],
    at,
  };
  const first = decideRetry(input);
  if (first?.status !== 'scheduled' || txn?.cardKey === undefined) return first;
  // The limits are counted at the time the retry would run, over the window before it.
  const since = new Date(Date.parse(first.nextAttemptAt!) - historyHours(input.accountType) * HOUR_MS);
  const history = await cardHistory().since(state.merchantId, txn.cardKey, since.toISOString());
  return decideRetry({ ...input, history });
}

/** The merchant's name, read once per batch. */
type MerchantName = () => Promise<string>;

export const merchantNameOf = (merchantId: string): MerchantName => {
  let name: Promise<string> | undefined;
  return () => (name ??= findMerchant(merchantId).then((m) => m?.name ?? merchantId));
};

/**
 * The payor's decline notice of a declined attempt, when the payment asks for one and the payor
 * has an e-mail. Not of a Failed one: the processor never answered it (an outage), which is
 * neither the payor's method's doing nor anything they can change; the merchant sees it
 * (`failedCount`, `payment.failed`).
 */
async function declineNotice(
  payment: Payment,
  result: AttemptResult,
  attempt: number,
  retry: PaymentRetry | undefined,
  merchantName: MerchantName,
): Promise<OutboxItem | undefined> {
  const { auth, txn } = result;
  if (!payment.sendDeclineNotification || auth.status !== 'Declined') return undefined;
  const { payorId } = parseProfileId(payment.profileId);
  const email = (await emailsOf([payorId], payment.merchantId)).get(payorId);
  if (!email) return undefined;
  return {
    outboxId: declineOutboxId(payment.paymentId, attempt),
    kind: 'payment-declined',
    recipient: email,
    status: 'pending',
    attempts: 0,
    createdAt: clock.now().toISOString(),
    paymentGroupId: payment.paymentGroupId,
    data: {
      merchantName: await merchantName(),
      amountCents: payment.amountCents,
      maskedAccountNumber: txn?.maskedAccountNumber ?? auth.maskedAccountNumber ?? '',
      accountType: txn?.accountType ?? auth.accountType ?? '',
      paymentId: payment.paymentId,
      ...(payment.orderId !== undefined && { orderId: payment.orderId }),
      responseMessage: auth.responseMessage,
      declinedAt: auth.processedAt,
      ...(retry?.status === 'scheduled' && { nextAttemptAt: retry.nextAttemptAt }),
    },
  };
}

/** What the answer of attempt `attempt` writes beside its authResponse. */
export async function answerRecord(
  payment: Payment,
  result: AttemptResult,
  attempt: number,
  state: Pick<BatchState, 'merchantId' | 'retryPolicy' | 'retry'>,
  merchantName: MerchantName,
): Promise<AnswerRecord> {
  const retry = await retryDecision(payment, result, attempt, state);
  const outbox = await declineNotice(payment, result, attempt, retry, merchantName);
  return {
    attempt: attemptOf(attempt, result.auth, state.retry?.round),
    ...(retry && { retry }),
    ...(outbox && { outbox }),
  };
}

/**
 * Records a payment's first answer once (unless a concurrent run recorded one first: then that
 * one): the payment as it is after.
 */
export async function recordFirstAnswer(
  payment: Payment,
  result: AttemptResult,
  state: Pick<BatchState, 'merchantId' | 'retryPolicy' | 'retry'>,
  merchantName: MerchantName,
): Promise<Payment> {
  const store = paymentStore();
  const record = await answerRecord(payment, result, 1, state, merchantName);
  if (await store.setAuthResponse(payment, result.auth, clock.now(), record))
    return {
      ...payment,
      authResponse: result.auth,
      attempts: [record.attempt],
      ...(record.retry && { retry: record.retry }),
    };
  return (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
}
