/**
 * The transactions core: a sale with a saved payment method, with the duplicate check before
 * processing and an idempotency key on the processor call. The API's sale and the scheduled
 * processing of groups both charge through `runSale`.
 *
 * `runSale` is idempotent for a given transactionId: called again (a retried step, a resumed
 * request) it returns the stored transaction, or repeats the processor call with the same key,
 * which the processor answers with the first result and no second charge.
 */
import { config } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import { declineOf } from '#domain/declines';
import { parseProfileId } from '#domain/payors';
import type { Transaction } from '#domain/transactions';
import { paymentProcessor } from '#processor/index';
import { ProcessorUnavailableError, type SaleResult } from '#processor/processor';
import { methodStore } from '#store/methods';
import { duplicateGuards } from '#store/duplicates';
import { transactionStore } from '#store/transactions';

export interface SaleRequest {
  transactionId: string;
  /** Idempotency key for the processor call. */
  processorKey: string;
  merchantId: string;
  profileId: string;
  amountCents: number;
  allowPartial: boolean;
  orderId?: string;
  /** The scheduled payment charged, when the sale comes from a group. */
  paymentId?: string;
  /**
   * A profile that names no saved method: `reject` (400, the API's request is invalid) or
   * `decline` (a scheduled payment whose method or payor is gone: Declined, category 1).
   */
  missingMethod: 'reject' | 'decline';
  /**
   * The processor gives no answer (ProcessorUnavailableError): `throw` it (the caller retries with
   * the same key) or `reverse` (timeout reversal, then a definite Declined 96, category 2).
   * @default 'reverse'
   */
  onNoAnswer?: 'throw' | 'reverse';
}

/** docs/product.md#duplicate-check: 5 minutes by default; DUPLICATE_WINDOW_SECONDS overrides it. */
export const duplicateWindowSeconds = (): number => config().duplicateWindowSeconds;

export async function runSale(request: SaleRequest, now: Date): Promise<Transaction> {
  const transactions = transactionStore();
  const existing = await transactions.find(request.transactionId);
  if (existing) return existing.transaction;

  const { payorId, savedPaymentMethodId } = parseProfileId(request.profileId);
  const base = {
    transactionId: request.transactionId,
    merchantId: request.merchantId,
    type: 'sale' as const,
    amountCents: request.amountCents,
    profileId: request.profileId,
    payorId,
    savedPaymentMethodId,
    ...(request.orderId !== undefined && { orderId: request.orderId }),
    ...(request.paymentId !== undefined && { paymentId: request.paymentId }),
    refundedCents: 0,
    refundCount: 0,
  };
  const declined = (code: string, extra: Partial<Transaction> = {}): Transaction => ({
    ...base,
    status: 'Declined',
    responseCode: code,
    responseMessage: declineOf(code).message,
    approvedCents: 0,
    isDuplicate: false,
    processedAt: now.toISOString(),
    ...extra,
  });

  const method = await methodStore().findMethod(payorId, savedPaymentMethodId, request.merchantId);
  if (!method) {
    if (request.missingMethod === 'reject') {
      throw new BadRequestError(
        `profileId ${request.profileId} names no saved payment method of this merchant`,
      );
    }
    return transactions.recordSale(declined('PM'));
  }
  const card = { accountType: method.accountType, maskedAccountNumber: method.maskedAccountNumber };

  const original = await duplicateGuards().guardDuplicate(
    request.merchantId,
    savedPaymentMethodId,
    request.amountCents,
    request.transactionId,
    now,
    duplicateWindowSeconds(),
  );
  if (original)
    return transactions.recordSale(
      declined('19', { ...card, isDuplicate: true, originalTransactionId: original }),
    );

  const processor = paymentProcessor();
  let result: SaleResult;
  try {
    result = await processor.sale({
      idempotencyKey: request.processorKey,
      merchantId: request.merchantId,
      token: method.processorToken,
      amountCents: request.amountCents,
      allowPartial: request.allowPartial,
    });
  } catch (error) {
    if (!(error instanceof ProcessorUnavailableError) || request.onNoAnswer === 'throw') throw error;
    // No answer: reverse whatever may have happened, so that the sale is a definite decline
    // (and the duplicate guard, released below, names a transaction that exists).
    await processor.reverseUnanswered({
      idempotencyKey: request.processorKey,
      merchantId: request.merchantId,
    });
    result = {
      approved: false,
      processorTransactionId: '',
      responseCode: '96',
      responseMessage: 'Processor did not answer; the authorization was reversed',
      approvedCents: 0,
      processedAt: new Date().toISOString(),
    };
  }
  const txn: Transaction = result.approved
    ? {
        ...base,
        ...card,
        status: 'Approved',
        responseCode: result.responseCode,
        responseMessage: result.responseMessage,
        approvedCents: result.approvedCents,
        ...(result.authCode !== undefined && { authCode: result.authCode }),
        isDuplicate: false,
        processorTransactionId: result.processorTransactionId,
        processedAt: result.processedAt,
        settlesAt: processor.settlementTime(result.processedAt),
      }
    : declined(result.responseCode, {
        ...card,
        responseMessage: result.responseMessage,
        ...(result.processorTransactionId !== '' && {
          processorTransactionId: result.processorTransactionId,
        }),
        processedAt: result.processedAt,
      });
  let stored: Transaction;
  try {
    stored = await transactions.recordSale(txn);
  } catch (error) {
    // Charged but not recorded: reverse at the processor (the caller sees the error and no
    // money moved). If the reversal fails too, a retry with the same key finds the approval.
    if (txn.status === 'Approved') {
      await processor
        .reverseUnanswered({ idempotencyKey: request.processorKey, merchantId: request.merchantId })
        .catch(() => undefined);
    }
    throw error;
  }
  if (stored.status === 'Declined') {
    await duplicateGuards().releaseGuard(
      request.merchantId,
      savedPaymentMethodId,
      request.amountCents,
      request.transactionId,
    );
  }
  return stored;
}
