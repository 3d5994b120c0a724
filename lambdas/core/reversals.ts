/**
 * Reversing a sale: a void before settlement (the whole amount), a refund after (whole or part,
 * up to the available amount). Both carry processor idempotency keys derived from the
 * transaction or refund id, so repeating them moves no money twice.
 */
import { config } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import {
  availableRefundCents,
  isSettled,
  voidMarginSeconds,
  withinVoidMargin,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { formatCents } from '#domain/money';
import { paymentProcessor } from '#processor/index';
import { transactionStore } from '#store/transactions';
import { requireTransaction } from './transactions';

/**
 * Voids an approved, unsettled sale. The void is reserved on the sale first (no refund can start
 * after that), so a void and a refund never both reverse one sale; a reserved void is finished by
 * a repeat (or the sweeper) even after the cut-off, and released when the processor refuses it.
 * No void is reserved within the safety margin of the cut-off (voidMarginSeconds). Voiding a voided sale
 * returns it unchanged.
 */
export async function voidSale(merchantId: string, transactionId: string, now: Date): Promise<Transaction> {
  const store = transactionStore();
  const { transaction } = await requireTransaction(transactionId, merchantId);
  if (transaction.status === 'Voided') return transaction;
  if (transaction.status === 'Declined')
    throw new BadRequestError(`transaction ${transactionId} was declined; nothing to void`);
  if (transaction.status === 'Pending')
    throw new BadRequestError(`transaction ${transactionId} is Pending; nothing to void yet`);
  if (transaction.voidingAt === undefined) {
    if (isSettled(transaction, now)) {
      throw new BadRequestError(`transaction ${transactionId} has settled; refund it instead of voiding`);
    }
    const margin = voidMarginSeconds(config().settlement.periodSeconds);
    if (withinVoidMargin(transaction, now, margin)) {
      throw new BadRequestError(
        `transaction ${transactionId} reaches its settlement cut-off at ${transaction.settlesAt} (less than ${margin} s away); refund it after the cut-off`,
      );
    }
    if (!(await store.reserveVoid(transactionId, now.toISOString()))) {
      throw new BadRequestError(`transaction ${transactionId} has refunds; it cannot be voided`);
    }
  }
  // A reserved void is finished whatever the time: the reservation was made before the margin.
  const result = await paymentProcessor().void({
    idempotencyKey: `void:${transactionId}`,
    merchantId,
    processorTransactionId: transaction.processorTransactionId!,
    amountCents: transaction.approvedCents,
  });
  if (!result.approved) {
    // A definite refusal: the reservation goes, so that the sale can be refunded once settled.
    await store.releaseVoid(transactionId);
    throw new BadRequestError(`the processor refused the void: ${result.responseMessage}`);
  }
  await store.markVoided(transactionId, result.processedAt);
  return (await requireTransaction(transactionId, merchantId)).transaction;
}

/**
 * Refunds part or all of a settled sale. The amount is reserved first (conditionally, so racing
 * refunds cannot exceed the charge), then sent to the processor, then marked Completed or Failed
 * (a failed refund gives its amount back). A processor that cannot be reached leaves the refund
 * Pending, still counted, and the error propagates: a retry with the same idempotencyKey resumes it.
 */
export async function refundSale(
  merchantId: string,
  transactionId: string,
  amountCents: number,
  refundId: string,
  now: Date,
): Promise<{ refund: Refund; transaction: Transaction }> {
  const store = transactionStore();
  const found = await requireTransaction(transactionId, merchantId);
  let refund = found.refunds.find((r) => r.refundId === refundId);
  if (!refund) {
    const txn = found.transaction;
    if (txn.voidingAt !== undefined)
      throw new BadRequestError(`transaction ${transactionId} is being voided; nothing to refund`);
    if (txn.status !== 'Approved')
      throw new BadRequestError(`transaction ${transactionId} is ${txn.status}; nothing to refund`);
    if (!isSettled(txn, now)) {
      throw new BadRequestError(
        `transaction ${transactionId} has not settled yet (settles ${txn.settlesAt}); void it instead`,
      );
    }
    const tooMuch = (available: number) =>
      new BadRequestError(
        `refund amount ${formatCents(amountCents)} exceeds availableRefundAmount ${formatCents(available)}`,
      );
    if (amountCents > availableRefundCents(txn)) throw tooMuch(availableRefundCents(txn));
    refund = { refundId, transactionId, amountCents, status: 'Pending', date: now.toISOString() };
    if (!(await store.reserveRefund(txn, refund))) {
      // Lost a race: to the same refund (a concurrent repeat: go on with it) or to others.
      const current = await requireTransaction(transactionId, merchantId);
      const same = current.refunds.find((r) => r.refundId === refundId);
      if (!same) throw tooMuch(availableRefundCents(current.transaction));
      refund = same;
    }
  }
  if (refund.status === 'Pending') {
    const result = await paymentProcessor().refund({
      idempotencyKey: `refund:${refundId}`,
      merchantId,
      processorTransactionId: found.transaction.processorTransactionId!,
      amountCents: refund.amountCents,
    });
    refund = await store.finishRefund(refund, {
      status: result.approved ? 'Completed' : 'Failed',
      responseCode: result.responseCode,
      responseMessage: result.responseMessage,
    });
  }
  return { refund, transaction: (await requireTransaction(transactionId, merchantId)).transaction };
}
