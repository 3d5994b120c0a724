/**
 * Reversing a sale: a void before settlement (the whole amount), a refund after (whole or part,
 * up to the available amount). Both carry processor idempotency keys derived from the
 * transaction or refund id, so repeating them moves no money twice.
 */
import { config } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import {
  availableRefundCents,
  debitVoidRefusal,
  disputedNow,
  isSettled,
  isUnclearedDebit,
  MAX_FAILED_REFUNDS_PER_SALE,
  MAX_HELD_REFUNDS,
  MAX_REFUNDS_PER_SALE,
  returnedRefusal,
  voidMarginSeconds,
  withinVoidMargin,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { disputedRefusal } from '#domain/disputes';
import { formatCents } from '#domain/money';
import { processorKeys } from '#domain/processor-keys';
import { paymentProcessor } from '#core/processor';
import { transactionStore } from '#store/transactions';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { sendRefundNow, sendScheduledRefund } from './scheduled-refunds';
import { requireTransaction } from './transactions';

/**
 * What a caller of voidSale or refundSale asks of the sale it reads (throwing to refuse it): run
 * on each read, before anything is reserved; not for a sale already voided, nor for a repeat of a
 * refund already reserved, which are answered as they are.
 */
type SaleCheck = (txn: Transaction) => void;

/**
 * Voids an approved, unsettled sale. The void is reserved on the sale first (no refund can start
 * after that), so a void and a refund never both reverse one sale; a reserved void is finished by
 * a repeat (or the sweeper) even after the cut-off, and released when the processor refuses it.
 * No void is reserved within the safety margin of the cut-off (voidMarginSeconds). Voiding a voided
 * sale returns it unchanged.
 *
 * Concurrent voids follow the winner: a caller whose reservation is refused reads the sale again
 * (strongly consistent) and answers from what it finds, the voided sale or the true reason
 * (refunds, a decline); a caller that finds the void reserved finishes it under the same
 * processor key. An approved void is always recorded, even when a concurrent refusal released the
 * reservation meanwhile.
 */
export async function voidSale(
  merchantId: string,
  transactionId: string,
  now: Date,
  check?: SaleCheck,
): Promise<Transaction> {
  const store = transactionStore();
  const transaction = await withOptimisticRetry(async () => {
    const { transaction: txn } = await requireTransaction(transactionId, merchantId);
    if (txn.status !== 'Voided') check?.(txn);
    if (txn.status === 'Voided' || txn.voidingAt !== undefined) return txn;
    assertVoidable(txn, now);
    // Refused: another void was recorded meanwhile, or a refund reserved; the next read says which.
    return (await store.reserveVoid(transactionId, now.toISOString())) ? txn : undefined;
  });
  if (transaction.status === 'Voided') return transaction;
  // A reserved void is finished whatever the time: the reservation was made before the margin.
  const result = await paymentProcessor().void({
    idempotencyKey: processorKeys.void(transactionId),
    merchantId,
    processorTransactionId: transaction.processorTransactionId!,
    amountCents: transaction.approvedCents,
  });
  if (!result.approved) {
    // A definite refusal: the reservation goes, so that the sale can be refunded once settled. A
    // concurrent caller's approval of the same void may have been recorded first: that stands.
    await store.releaseVoid(transactionId);
    const { transaction: after } = await requireTransaction(transactionId, merchantId);
    if (after.status === 'Voided') return after;
    throw new BadRequestError(`the processor refused the void: ${result.responseMessage}`);
  }
  await store.markVoided(transaction, result.processedAt);
  return (await requireTransaction(transactionId, merchantId)).transaction;
}

/** Throws the true reason an unreserved sale cannot be voided now. */
function assertVoidable(txn: Transaction, now: Date): void {
  const id = txn.transactionId;
  const refusal = returnedRefusal(txn, 'void') ?? debitVoidRefusal(txn, paymentProcessor().voidsBankDebits);
  if (refusal !== undefined) throw new BadRequestError(refusal);
  if (txn.status === 'Declined') throw new BadRequestError(`transaction ${id} was declined; nothing to void`);
  if (txn.status === 'Pending')
    throw new BadRequestError(`transaction ${id} is Pending; nothing to void yet`);
  if (disputedNow(txn)) throw new BadRequestError(disputedRefusal(txn, 'voided'));
  if (txn.refundedCents > 0) throw new BadRequestError(`transaction ${id} has refunds; it cannot be voided`);
  if (isSettled(txn, now))
    throw new BadRequestError(`transaction ${id} has settled; refund it instead of voiding`);
  const margin = voidMarginSeconds(config().settlement.periodSeconds);
  if (withinVoidMargin(txn, now, margin)) {
    throw new BadRequestError(
      `transaction ${id} reaches its settlement cut-off at ${txn.settlesAt} (less than ${margin} s away); refund it after the cut-off`,
    );
  }
}

/**
 * Refunds part or all of a settled sale. A refund of a bank debit that has not cleared is held:
 * reserved as now, answered Pending with `heldUntilCleared`, and sent when the debit clears (or
 * Failed if it is returned first); where the processor cannot cancel a submitted debit, such a
 * refund is also how the debit is reversed before its cut-off. The amount is reserved first (conditionally, so racing
 * refunds cannot exceed the charge), then sent to the processor, then marked Completed or Failed
 * (a failed refund gives its amount back). A processor that cannot be reached leaves the refund
 * Pending, still counted, and the error propagates: a retry with the same idempotencyKey resumes it.
 * A reservation refused by a concurrent change reads the sale again and answers from it: the same
 * refund reserved by a concurrent repeat goes on, a void reserved meanwhile refuses it as such, an
 * amount that no longer fits names the available amount as it now is, and one that fits again (a
 * failed refund gave its amount back) is reserved afresh.
 */
export async function refundSale(
  merchantId: string,
  transactionId: string,
  amountCents: number,
  refundId: string,
  now: Date,
  check?: SaleCheck,
): Promise<{ refund: Refund; transaction: Transaction }> {
  const store = transactionStore();
  const reserved = await withOptimisticRetry(async () => {
    const { transaction: txn, refunds } = await requireTransaction(transactionId, merchantId);
    const same = refunds.find((r) => r.refundId === refundId);
    if (same) return { refund: same, txn };
    check?.(txn);
    if (txn.voidingAt !== undefined && txn.status === 'Approved')
      throw new BadRequestError(`transaction ${transactionId} is being voided; nothing to refund`);
    const returned = returnedRefusal(txn, 'refund');
    if (returned !== undefined) throw new BadRequestError(returned);
    if (txn.status !== 'Approved')
      throw new BadRequestError(`transaction ${transactionId} is ${txn.status}; nothing to refund`);
    // Also when a dispute opened between the read and the reservation: the reservation refuses
    // it, and the sale read again says why.
    if (disputedNow(txn)) throw new BadRequestError(disputedRefusal(txn, 'refunded'));
    // A bank debit that has not cleared: the refund is held until it clears (also before the
    // cut-off where the processor cannot cancel a submitted debit).
    const held = isUnclearedDebit(txn);
    if (!isSettled(txn, now) && !(held && !paymentProcessor().voidsBankDebits)) {
      throw new BadRequestError(
        `transaction ${transactionId} has not settled yet (settles ${txn.settlesAt}); void it instead`,
      );
    }
    if ((txn.failedRefundCount ?? 0) >= MAX_FAILED_REFUNDS_PER_SALE)
      throw new BadRequestError(
        `transaction ${transactionId} has had ${MAX_FAILED_REFUNDS_PER_SALE} refunds refused by the processor, the most a sale takes: no more are sent`,
      );
    // Also when the reservation refused it: the sale read again holds as many already.
    if (txn.refundCount >= MAX_REFUNDS_PER_SALE)
      throw new BadRequestError(
        `transaction ${transactionId} already has ${MAX_REFUNDS_PER_SALE} refunds, the most a sale takes`,
      );
    if (held && txn.refundCount >= MAX_HELD_REFUNDS)
      throw new BadRequestError(
        `transaction ${transactionId} already holds ${MAX_HELD_REFUNDS} refunds until its bank debit clears; refund more once it has cleared`,
      );
    const available = availableRefundCents(txn);
    if (amountCents > available) {
      throw new BadRequestError(
        `refund amount ${formatCents(amountCents)} exceeds availableRefundAmount ${formatCents(available)}`,
      );
    }
    const pending: Refund = {
      refundId,
      transactionId,
      amountCents,
      status: 'Pending',
      date: now.toISOString(),
      ...(held && { heldUntilCleared: true as const }),
    };
    return (await store.reserveRefund(txn, pending)) ? { refund: pending, txn } : undefined;
  });
  let { refund } = reserved;
  // A refund a group's void-or-refund scheduled for after the cut-off is sent as the sweeper sends
  // it, under its sent and refused marks (never once its sale is disputed, never after a refusal
  // gave its amount back), and not before its time. A held refund is sent by its debit's clearing
  // (core/notice-follow-ups.ts), not now.
  if (refund.status === 'Pending' && refund.sendAfter !== undefined) {
    if (now.toISOString() >= refund.sendAfter) refund = await sendScheduledRefund(reserved.txn, refund, now);
  } else if (refund.status === 'Pending' && refund.heldUntilCleared !== true) {
    // Under its sent and refused marks too: resumed after a crash (a repeat, the sweeper) once its
    // sale is disputed, one never sent is refused rather than sent. A refund of a sale of the
    // transactions API is announced (refund.completed, refund.failed); one of a scheduled
    // payment's sale is announced by its payment (payment.refunded).
    refund = await sendRefundNow(reserved.txn, refund, now);
  }
  return { refund, transaction: (await requireTransaction(transactionId, merchantId)).transaction };
}

/**
 * The transactions API's void and refund reverse the API's own sales. A scheduled payment's sale
 * is reversed by its group's void-or-refund, which records the reversal on the payment, announces
 * it (payment.voided, payment.refunded) and is what the group's summary and report count: through
 * the transactions API it moved money that neither the payment, its events nor its group showed.
 */
function assertApiSale(txn: Transaction, reversal: 'voided' | 'refunded'): void {
  if (txn.paymentId === undefined) return;
  const group = txn.paymentGroupId === undefined ? '' : ` of group ${txn.paymentGroupId}`;
  throw new BadRequestError(
    `transaction ${txn.transactionId} is the sale of scheduled payment ${txn.paymentId}${group}: it is ${reversal} by the group's void-or-refund (paymentIds: ["${txn.paymentId}"])`,
  );
}

/** POST .../transactions/{id}/void: voidSale of a sale of the transactions API. */
export function voidTransaction(merchantId: string, transactionId: string, now: Date) {
  return voidSale(merchantId, transactionId, now, (txn) => assertApiSale(txn, 'voided'));
}

/** POST .../transactions/{id}/refunds: refundSale of a sale of the transactions API (a resumed refund goes on). */
export function refundTransaction(
  merchantId: string,
  transactionId: string,
  amountCents: number,
  refundId: string,
  now: Date,
) {
  return refundSale(merchantId, transactionId, amountCents, refundId, now, (txn) =>
    assertApiSale(txn, 'refunded'),
  );
}
