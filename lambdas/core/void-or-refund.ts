/**
 * Reversing a group's approved payments: a void before settlement, a refund of the available
 * amount after. Payments never charged (pending, deleted, declined, failed) are skipped. Safe to
 * repeat: a payment with a recorded reversal is skipped, and the reversal's ids are derived from
 * the payment, so even a repeat racing the first reverses nothing twice.
 *
 * Inside the void safety margin before the sale's settlement cut-off (no void may be reserved
 * there, docs/decisions.md "Void safety margin") the refund is scheduled instead:
 * written ahead as a Pending refund that reserves its amount on the sale, answered
 * `refund_scheduled`, and sent by the sweeper right after the cut-off (core/scheduled-refunds.ts),
 * which shows the outcome on the payment. It has the id the refund after the cut-off would have, so a
 * repeat at any time finds it instead of refunding again.
 *
 * A bank debit that has not cleared is voided before its cut-off where the processor can; else
 * (settled, inside the margin, or a processor that cannot cancel a submitted debit) its refund is
 * held until it clears (written ahead the same way, answered `refund_scheduled` with
 * `heldUntilCleared`), sent by its clearing and Failed if it is returned first.
 */
import { v5 as uuidv5 } from 'uuid';
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import { disputedRefusal } from '#domain/disputes';
import { reversalEventType, type Group, type Payment } from '#domain/groups';
import { fromCents } from '#domain/money';
import {
  availableRefundCents,
  disputedNow,
  isSettled,
  isUnclearedDebit,
  MAX_FAILED_REFUNDS_PER_SALE,
  MAX_HELD_REFUNDS,
  MAX_REFUNDS_PER_SALE,
  voidMarginSeconds,
  withinVoidMargin,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { ProcessorUnavailableError } from '#processor/processor';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { BadRequestError, ServiceError, ServiceUnavailableError } from '#shared/errors';
import { logger } from '#shared/logger';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import { transactionStore } from '#store/transactions';
import { paymentProcessor } from './processor';
import { refundResponse } from './scheduled-refunds';
import { requireTransaction } from './transactions';
import { requireGroup } from './groups';
import { refundSale, voidSale } from './reversals';
import { clock } from '#shared/clock';

const REVERSAL_NAMESPACE = 'f0a3c1d2-7b4e-4c8a-9e21-5d6f7a8b9c0d';
/**
 * Payments reversed at once. The synchronous path answers up to 1,000 payments inside API
 * Gateway's 29 s: at a card network's 0.5 s per reversal, 1,000 / 64 × 0.5 s ≈ 8 s (at 8 in
 * flight it would be about a minute). Each reversal is a few single-item writes: the table's
 * load stays far below one partition's limit.
 */
const CONCURRENCY = 64;

/** `refund_scheduled`: inside the void margin; its refund is sent right after the cut-off. */
export type Outcome = 'voided' | 'refunded' | 'refund_scheduled' | 'skipped' | 'failed';
interface PaymentOutcome {
  paymentId: string;
  outcome: Outcome;
  response?: VoidOrRefundResponse;
  reason?: string;
}

interface GroupReversal {
  group: Group;
  outcomes: PaymentOutcome[];
}

const outcomeOfRefund = (refund: Refund): Outcome =>
  refund.status === 'Failed' ? 'failed' : refund.status === 'Pending' ? 'refund_scheduled' : 'refunded';

/**
 * A refund of an approved sale written ahead and sent later by the service: inside the void margin
 * of an unsettled sale (`scheduled`), sent right after the cut-off; of a bank debit that has not
 * cleared (`held`, docs/product.md "Reversals of bank debits"), sent by its clearing. The Pending
 * refund is the record written ahead (reserving the amount, so no other refund or void can take
 * it); the processor is not asked now. A refund of this id found already (a repeat, or a request
 * that died before recording it on the payment) is answered as it stands. Undefined: a held refund
 * lost to the debit's clearing (the sale is reversed again as it now is).
 */
async function writeAheadRefund(
  payment: Payment,
  transaction: Transaction,
  refunds: Refund[],
  refundId: string,
  now: Date,
  kind: 'scheduled' | 'held',
): Promise<PaymentOutcome | undefined> {
  const { paymentId } = payment;
  let refund = refunds.find((r) => r.refundId === refundId);
  if (!refund) {
    const amountCents = availableRefundCents(transaction);
    if (amountCents === 0) return { paymentId, outcome: 'skipped', reason: 'nothing left to refund' };
    if (transaction.refundCount >= MAX_REFUNDS_PER_SALE)
      return {
        paymentId,
        outcome: 'skipped',
        reason: `its sale already has ${MAX_REFUNDS_PER_SALE} refunds, the most a sale takes`,
      };
    if (tooManyRefused(transaction)) return { paymentId, outcome: 'skipped', reason: TOO_MANY_REFUSED };
    if (kind === 'held' && transaction.refundCount >= MAX_HELD_REFUNDS)
      return {
        paymentId,
        outcome: 'skipped',
        reason: `its sale already holds ${MAX_HELD_REFUNDS} refunds until its bank debit clears`,
      };
    const planned: Refund = {
      refundId,
      transactionId: transaction.transactionId,
      amountCents,
      status: 'Pending',
      date: now.toISOString(),
      ...(kind === 'held' ? { heldUntilCleared: true as const } : { sendAfter: transaction.settlesAt! }),
      paymentGroupId: payment.paymentGroupId,
      paymentId,
    };
    if (await transactionStore().reserveRefund(transaction, planned)) refund = planned;
    else {
      // Lost a race: to a concurrent repeat of this refund (go on with it), to the debit's
      // clearing (refund it as now), or to a void or refund that took the amount (a refusal of
      // this payment's reversal).
      const current = await requireTransaction(transaction.transactionId, transaction.merchantId);
      refund = current.refunds.find((r) => r.refundId === refundId);
      if (!refund && kind === 'held' && !isUnclearedDebit(current.transaction)) return undefined;
      if (!refund)
        throw new BadRequestError(
          `transaction ${transaction.transactionId} is being voided or refunded by another request`,
        );
    }
  }
  return { paymentId, outcome: outcomeOfRefund(refund), response: refundResponse(refund) };
}

/** Too late to void the sale before its cut-off, at the deployment's settlement period. */
const insideVoidMargin = (transaction: Transaction, now: Date): boolean =>
  withinVoidMargin(transaction, now, voidMarginSeconds(config().settlement.periodSeconds));

/**
 * Whether the sale is a bank debit that has not cleared and is reversed by a refund held until it
 * clears: settled, inside the void margin, or on a processor that cannot cancel a submitted debit
 * (a repeat finds the refund of this id). Otherwise it is voided or refunded as any sale.
 */
function heldReversal(transaction: Transaction, refunds: Refund[], refundId: string, now: Date): boolean {
  if (!isUnclearedDebit(transaction) || transaction.voidingAt !== undefined) return false;
  return (
    refunds.some((r) => r.refundId === refundId) ||
    !paymentProcessor().voidsBankDebits ||
    isSettled(transaction, now) ||
    insideVoidMargin(transaction, now)
  );
}

/** A sale whose refunds the processor refused MAX_FAILED_REFUNDS_PER_SALE times takes no more. */
const tooManyRefused = (sale: Transaction): boolean =>
  (sale.failedRefundCount ?? 0) >= MAX_FAILED_REFUNDS_PER_SALE;
const TOO_MANY_REFUSED = `its sale has had ${MAX_FAILED_REFUNDS_PER_SALE} refunds refused by the processor, the most a sale takes`;

/** Voids an unsettled sale, refunds what is left of a settled one. */
async function reverseSale(
  payment: Payment,
  transactionId: string,
  merchantId: string,
  now: Date,
): Promise<PaymentOutcome> {
  const { paymentId } = payment;
  const { transaction, refunds } = await requireTransaction(transactionId, merchantId);
  // One refund per payment; after a failed one (recorded), the next attempt gets a new id.
  const failedBefore = (payment.voidOrRefundResponses ?? []).filter((r) => r.status === 'Failed').length;
  const refundId = uuidv5(`reversal:${paymentId}:${failedBefore}`, REVERSAL_NAMESPACE);
  const refundFound = refunds.some((r) => r.refundId === refundId);
  // No reversal while the sale is disputed (a reserved void or a refund of this id is finished),
  // whatever the time: the void it would be before the margin, the refund after it.
  if (
    transaction.status === 'Approved' &&
    transaction.voidingAt === undefined &&
    disputedNow(transaction) &&
    !refundFound
  ) {
    const refunded = isSettled(transaction, now) || insideVoidMargin(transaction, now);
    return {
      paymentId,
      outcome: 'skipped',
      reason: disputedRefusal(transaction, refunded ? 'refunded' : 'voided'),
    };
  }
  // Money that may still come back: the refund waits for the debit to clear.
  if (heldReversal(transaction, refunds, refundId, now)) {
    const held = await writeAheadRefund(payment, transaction, refunds, refundId, now, 'held');
    return held ?? reverseSale(payment, transactionId, merchantId, now);
  }
  // Too late to void, too early to refund: the refund is scheduled for right after the cut-off.
  if (
    transaction.status === 'Approved' &&
    transaction.voidingAt === undefined &&
    !isSettled(transaction, now) &&
    (refundFound || insideVoidMargin(transaction, now))
  )
    return (await writeAheadRefund(payment, transaction, refunds, refundId, now, 'scheduled'))!;
  // A reserved void is finished whatever the time (a refund could never start after it).
  if (
    transaction.status === 'Voided' ||
    transaction.voidingAt !== undefined ||
    !isSettled(transaction, now)
  ) {
    const voided = await voidSale(merchantId, transaction.transactionId, now);
    const response: VoidOrRefundResponse = {
      type: 'Void',
      transactionId: voided.transactionId,
      status: 'Voided',
      amount: fromCents(voided.approvedCents),
      responseCode: '00',
      responseMessage: 'Voided',
      date: voided.voidedAt ?? now.toISOString(),
    };
    return { paymentId, outcome: 'voided', response };
  }
  const available = availableRefundCents(transaction);
  if (available === 0 && !refundFound) {
    return { paymentId, outcome: 'skipped', reason: 'nothing left to refund' };
  }
  if (tooManyRefused(transaction) && !refundFound)
    return { paymentId, outcome: 'skipped', reason: TOO_MANY_REFUSED };
  const { refund } = await refundSale(merchantId, transaction.transactionId, available, refundId, now);
  return {
    paymentId,
    outcome: refund.status === 'Failed' ? 'failed' : 'refunded',
    response: refundResponse(refund),
  };
}

/**
 * A Pending refund's response as its refund stands now: a held refund a return cancelled after it
 * was reserved is Failed, and the return, finding no response of it on the payment, left the
 * payment as it was (the same for one its clearing finished). Read after the payment, so that a
 * return applied since changed the payment too, and the record's condition refuses the write.
 */
async function asItStands(payment: Payment, response: VoidOrRefundResponse): Promise<VoidOrRefundResponse> {
  const saleId = payment.authResponse?.transactionId;
  if (response.type !== 'Refund' || response.status !== 'Pending' || saleId === undefined) return response;
  const refund = (await transactionStore().find(saleId))?.refunds.find(
    (r) => r.refundId === response.transactionId,
  );
  return refund === undefined || refund.status === 'Pending'
    ? response
    : { ...refundResponse(refund), date: response.date };
}

/** Records a reversal on its payment once (a concurrent repeat records the same reversal). */
async function recordReversal(payment: Payment, reversal: VoidOrRefundResponse, now: Date): Promise<void> {
  const store = paymentStore();
  await withOptimisticRetry(async () => {
    const current = (await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment;
    const recorded = current.voidOrRefundResponses ?? [];
    if (recorded.some((r) => r.transactionId === reversal.transactionId && r.type === reversal.type)) {
      return true;
    }
    const response = await asItStands(current, reversal);
    return (
      (await store.setReversals(current, [...recorded, response], now, reversalEventType(response))) ||
      undefined
    );
  }).catch((error: unknown) => {
    // The reversal happened; only its record on the payment lost every race. A repeat of the
    // request finds the reversal by its derived id and records it then.
    if (!(error instanceof ServiceUnavailableError)) throw error;
  });
}

async function reverse(payment: Payment, merchantId: string, now: Date): Promise<PaymentOutcome> {
  const { paymentId } = payment;
  const auth = payment.authResponse;
  if (!auth || auth.status !== 'Approved' || !auth.transactionId) {
    return {
      paymentId,
      outcome: 'skipped',
      reason: payment.deleted ? 'deleted' : auth ? `not approved (${auth.status})` : 'not processed',
    };
  }
  if ((payment.voidOrRefundResponses ?? []).some((r) => r.status !== 'Failed')) {
    return { paymentId, outcome: 'skipped', reason: 'already reversed' };
  }
  const outcome = await reverseSale(payment, auth.transactionId, merchantId, now);
  if (outcome.response) await recordReversal(payment, outcome.response, now);
  return outcome;
}

/**
 * The group's payments named by `paymentIds` (any case, duplicates once), read by key so that the
 * cost follows the list, not the group; or all of them.
 */
async function selectPayments(group: Group, paymentIds: string[] | undefined): Promise<Payment[]> {
  if (!paymentIds) return paymentStore().listPayments(group.paymentGroupId);
  const wanted = [...new Set(paymentIds.map((id) => id.toLowerCase()))];
  const byId = new Map(
    (await paymentStore().getPayments(group.paymentGroupId, wanted)).map((p) => [p.paymentId, p]),
  );
  const missing = paymentIds.findIndex((id) => !byId.has(id.toLowerCase()));
  if (missing >= 0)
    throw new BadRequestError(`paymentIds[${missing}] ${paymentIds[missing]} is not a payment of this group`);
  return wanted.map((id) => byId.get(id)!);
}

/** What a payment not reached before the request's deadline answers: repeating it is safe. */
export const NOT_ATTEMPTED =
  "not attempted: the request's time ran out first; repeat the request to reverse it";

/**
 * Reverses the named payments of a group (all without `paymentIds`), each by `reversePayment`.
 * No reversal starts after `deadline` (epoch ms): those payments answer `failed` with
 * NOT_ATTEMPTED, so that a slow processor cannot hold the request past the API's time limit.
 */
export async function voidOrRefundGroup(
  groupId: string,
  merchantId: string,
  paymentIds: string[] | undefined,
  now: Date,
  deadline = Number.POSITIVE_INFINITY,
): Promise<GroupReversal> {
  const group = await requireGroup(groupId, merchantId);
  const payments = await selectPayments(group, paymentIds);
  // The clock runs on while a large group is reversed: each payment decides void or refund at
  // its own time (the request's `now` plus the time elapsed), not at the request's start.
  const started = clock.nowMs();
  const nowOf = () => new Date(now.getTime() + (clock.nowMs() - started));
  const outcomes = await mapLimit(payments, CONCURRENCY, (payment) =>
    clock.nowMs() > deadline
      ? Promise.resolve<PaymentOutcome>({
          paymentId: payment.paymentId,
          outcome: 'failed',
          reason: NOT_ATTEMPTED,
        })
      : reversePayment(payment, merchantId, nowOf()).catch((error: unknown) => unanswered(payment, error)),
  );
  // Announced once the request is done (each payment's reversal is announced on its own).
  await groupStore().announceVoidOrRefund(groupId, nowOf());
  return { group, outcomes };
}

/**
 * What a payment whose processor call got no answer answers. Its reversal was written ahead (a
 * Pending refund, a reserved void): the sweeper finishes it under the same processor key, and a
 * repeat of the request resumes it and records it on the payment.
 */
export const NO_PROCESSOR_ANSWER =
  'the processor gave no answer in time; the reversal stays pending and is finished under the same key (repeat the request to record it on the payment)';

/**
 * Within a request, a payment whose processor call got no answer is that payment's failure, named
 * as such: a processor's time-out never answers the whole request 500.
 */
function unanswered(payment: Payment, error: unknown): PaymentOutcome {
  if (!(error instanceof ProcessorUnavailableError)) throw error;
  logger.warn('reversal unanswered', { paymentId: payment.paymentId, reason: error.message });
  return { paymentId: payment.paymentId, outcome: 'failed', reason: NO_PROCESSOR_ANSWER };
}

/**
 * Reverses one payment of a group (the request above, and the background void-or-refund's
 * batches). A reversal the service refuses (a typed error) is that payment's failure; anything
 * else is thrown (the background batch is retried by its state machine).
 */
export async function reversePayment(
  payment: Payment,
  merchantId: string,
  now: Date,
): Promise<PaymentOutcome> {
  try {
    return await reverse(payment, merchantId, now);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    logger.warn('reversal refused', { paymentId: payment.paymentId, reason: error.message });
    return { paymentId: payment.paymentId, outcome: 'failed', reason: error.message };
  }
}
