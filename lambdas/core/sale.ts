/**
 * The transactions core: a sale with a saved payment method, with the duplicate check before
 * processing and an idempotency key on the processor call. The API's sale and the scheduled
 * processing of groups both charge through `runSale`.
 *
 * `runSale` is idempotent for a given transactionId: called again (a retried step, a resumed
 * request, the sweeper) it returns the stored transaction, or repeats the processor call with the
 * same key, which the processor answers with the first result and no second charge.
 *
 * No charge without a record: the sale is written `Pending` before the processor is asked and
 * settled with its answer afterwards (conditionally, the first answer wins). A crash in between
 * leaves the Pending sale, which the sweeper (core/sweeper.ts), a GET of it or a retry settles.
 */
import { config } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import { declineOf } from '#domain/declines';
import { isBank } from '#domain/cards';
import { isUnusable, parseProfileId, type SavedMethod } from '#domain/payors';
import { PENDING_CODE, PENDING_MESSAGE, type Transaction } from '#domain/transactions';
import { paymentProcessor, processorTiming } from '#core/processor';
import { ProcessorUnavailableError, type SaleResult } from '#processor/processor';
import { methodStore } from '#store/methods';
import { logger } from '#shared/logger';
import { duplicateGuards, type DuplicateKey } from '#store/duplicates';
import { transactionStore } from '#store/transactions';
import { clock } from '#shared/clock';

export interface SaleRequest {
  transactionId: string;
  /** Idempotency key for the processor call. */
  processorKey: string;
  merchantId: string;
  profileId: string;
  amountCents: number;
  allowPartial: boolean;
  orderId?: string;
  /** The payor's sponsorKey the sale's record carries (docs/product.md#payments). */
  sponsorKey?: string;
  /** The scheduled payment charged, when the sale comes from a group. */
  paymentId?: string;
  /** That payment's group (a later notice of the sale finds the payment by it). */
  paymentGroupId?: string;
  /** Which charge of that payment (absent: the first; 2: its first retry). */
  attempt?: number;
  /**
   * When the attempt began, as its card-history entry is keyed (a retry's entry is written before
   * the sale, core/retries.ts). Default: when the sale is received.
   */
  cardUseAt?: string;
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
const duplicateWindowSeconds = (): number => config().duplicateWindowSeconds;

/** The response message of a sale whose processor call was reversed for want of an answer. */
export const REVERSED_MESSAGE = 'Processor did not answer; the authorization was reversed';

const duplicateKey = (t: Transaction): DuplicateKey => ({
  merchantId: t.merchantId,
  methodId: t.savedPaymentMethodId,
  amountCents: t.amountCents,
  ...(t.orderId !== undefined && { orderId: t.orderId }),
  // A retry is the same payment's next attempt, never a duplicate of an earlier attempt of it.
  ...(t.paymentId !== undefined && { paymentId: t.paymentId }),
});

/** The card key the retry limits count a method's attempts by (store/card-history.ts). */
export const cardKeyOf = (method: { savedPaymentMethodId: string; fingerprint?: string }): string =>
  method.fingerprint ?? `method:${method.savedPaymentMethodId}`;

/**
 * When a sale's processor key was first used: its Pending record is written just before the first
 * call (a retry's card-history entry, `cardUseAt`, earlier still); a record given up on keeps
 * `cardUseAt`. The processor looks for an old key's charge from then on.
 */
const keyFirstUsedAt = (t: Pick<Transaction, 'cardUseAt' | 'processedAt'>): string =>
  t.cardUseAt !== undefined && t.cardUseAt < t.processedAt ? t.cardUseAt : t.processedAt;

/** What a sale's record keeps of its method: what the retry rules and the reports read. */
const cardOf = (method: SavedMethod) => ({
  accountType: method.accountType,
  maskedAccountNumber: method.maskedAccountNumber,
  cardKey: cardKeyOf(method),
});

/** The sale as it is written before the processor is asked. */
function pendingSale(request: SaleRequest, now: Date): Transaction {
  const { payorId, savedPaymentMethodId } = parseProfileId(request.profileId);
  return {
    transactionId: request.transactionId,
    merchantId: request.merchantId,
    type: 'sale',
    status: 'Pending',
    responseCode: PENDING_CODE,
    responseMessage: PENDING_MESSAGE,
    amountCents: request.amountCents,
    approvedCents: 0,
    isDuplicate: false,
    profileId: request.profileId,
    payorId,
    savedPaymentMethodId,
    ...(request.orderId !== undefined && { orderId: request.orderId }),
    ...(request.sponsorKey !== undefined && { sponsorKey: request.sponsorKey }),
    ...(request.paymentId !== undefined && { paymentId: request.paymentId }),
    ...(request.paymentGroupId !== undefined && { paymentGroupId: request.paymentGroupId }),
    ...(request.attempt !== undefined && request.attempt > 1 && { attempt: request.attempt }),
    cardUseAt: request.cardUseAt ?? now.toISOString(),
    processedAt: now.toISOString(),
    refundedCents: 0,
    refundCount: 0,
    processorKey: request.processorKey,
    allowPartial: request.allowPartial,
  };
}

/** Why an unusable method (isUnusable) is declined without asking the processor, in words. */
function unusableBecause(method: Pick<SavedMethod, 'status' | 'accountType'>): string {
  const { status } = method;
  // A bank account is closed by its bank's return (R02-R04), a card by the account updater.
  if (status === 'closed' && isBank(method.accountType))
    return 'the bank returned a debit of it as closed or invalid (an administrative return)';
  if (status === 'closed') return 'the account updater reported the account closed';
  if (status === 'revoked')
    return 'the payor revoked the authorization (an unauthorized return or a fraud dispute)';
  return 'the card network asks to contact the cardholder';
}

/** A sale's final record: the Pending one with a decline. */
function declined(pending: Transaction, code: string, extra: Partial<Transaction> = {}): Transaction {
  return {
    ...pending,
    status: 'Declined',
    responseCode: code,
    responseMessage: declineOf(code).message,
    approvedCents: 0,
    processedAt: clock.now().toISOString(),
    ...extra,
  };
}

/** A sale's final record: the Pending one with the processor's answer. */
function answered(
  pending: Transaction,
  result: SaleResult,
  settlementTime: (at: string) => string,
): Transaction {
  if (!result.approved)
    return declined(pending, result.responseCode, {
      responseMessage: result.responseMessage,
      ...(result.processorTransactionId !== '' && { processorTransactionId: result.processorTransactionId }),
      ...(result.merchantAdviceCode !== undefined && { merchantAdviceCode: result.merchantAdviceCode }),
      processedAt: result.processedAt,
    });
  return {
    ...pending,
    status: 'Approved',
    responseCode: result.responseCode,
    responseMessage: result.responseMessage,
    approvedCents: result.approvedCents,
    ...(result.authCode !== undefined && { authCode: result.authCode }),
    processorTransactionId: result.processorTransactionId,
    processedAt: result.processedAt,
    settlesAt: settlementTime(result.processedAt),
  };
}

/**
 * Records a sale's answer. If the write's response is lost (it may have succeeded), the record is
 * read back before anything else: a settled record is the answer. A sale still Pending stays so:
 * the error propagates, nothing is reversed, and the sweeper or a retry settles it with its key.
 */
async function settle(txn: Transaction): Promise<Transaction> {
  const transactions = transactionStore();
  let stored: Transaction;
  try {
    stored = await transactions.settleSale(txn);
  } catch (error) {
    const found = await transactions.find(txn.transactionId).catch(() => undefined);
    if (!found || found.transaction.status === 'Pending') throw error;
    logger.warn('the response to a sale record was lost; read back', { transactionId: txn.transactionId });
    stored = found.transaction;
  }
  if (stored.status === 'Declined')
    await duplicateGuards().releaseGuard(duplicateKey(stored), stored.transactionId);
  return stored;
}

export async function runSale(request: SaleRequest, now: Date): Promise<Transaction> {
  const transactions = transactionStore();
  const existing = (await transactions.find(request.transactionId))?.transaction;
  if (existing && existing.status !== 'Pending') return existing;

  const { payorId, savedPaymentMethodId } = parseProfileId(request.profileId);
  const method = await methodStore().findMethod(payorId, savedPaymentMethodId, request.merchantId);
  if (!method) {
    // A Pending sale may have charged before its method went: reverse it, never just decline.
    if (existing) return (await giveUpSale(request, 'the payment method is gone', now)).transaction;
    if (request.missingMethod === 'reject') {
      throw new BadRequestError(
        `profileId ${request.profileId} names no saved payment method of this merchant`,
      );
    }
    return transactions.recordSale(
      declined(pendingSale(request, now), 'PM', { processedAt: now.toISOString() }),
    );
  }
  const card = cardOf(method);
  if (isUnusable(method)) {
    // The account updater found the account closed (or to be checked with the cardholder), or a
    // return or dispute revoked it: a definite decline, recorded without asking the processor
    // (DESIGN section 5). A Pending sale (existing) may have reached the processor before: it is
    // given up, whatever was charged reversed, and never sent again (a new debit of it).
    if (existing)
      return (await giveUpSale(request, `the payment method is ${method.status}`, now)).transaction;
    return transactions.recordSale(
      declined({ ...pendingSale(request, now), ...card }, 'R2', {
        responseMessage: `${declineOf('R2').message}: ${unusableBecause(method)}`,
        processedAt: now.toISOString(),
      }),
    );
  }
  const fresh: Transaction = { ...pendingSale(request, now), ...card };
  const pending = existing ?? (await transactions.beginSale(fresh));
  if (pending.status !== 'Pending') return pending;
  // Resumed: the processor may have been asked before (a crash, a lost answer).
  const resumed = pending !== fresh;

  // The guard is taken at the time the sale was received, also when it is resumed later.
  const guard = () =>
    duplicateGuards().guardDuplicate(
      duplicateKey(pending),
      pending.transactionId,
      new Date(pending.processedAt),
      duplicateWindowSeconds(),
    );
  let original = await guard();
  // A declined sale blocks nothing: one whose guard outlived it (its release failed after its
  // record) gives the guard up now.
  const holder = original === undefined ? undefined : (await transactions.find(original))?.transaction;
  if (holder?.status === 'Declined') {
    await duplicateGuards().releaseGuard(duplicateKey(holder), holder.transactionId);
    original = await guard();
  }
  const processor = paymentProcessor();
  const key = {
    idempotencyKey: pending.processorKey ?? request.processorKey,
    merchantId: request.merchantId,
    keyFirstUsedAt: keyFirstUsedAt(pending),
  };
  if (original) {
    // A resumed duplicate may have been charged before it lost its guard: reverse that first.
    if (resumed) await processor.reverseUnanswered({ ...key, token: method.processorToken });
    return settle(declined(pending, '19', { isDuplicate: true, originalTransactionId: original }));
  }

  let result: SaleResult;
  try {
    result = await processor.sale({
      ...key,
      token: method.processorToken,
      amountCents: pending.amountCents,
      allowPartial: pending.allowPartial ?? request.allowPartial,
    });
  } catch (error) {
    if (!(error instanceof ProcessorUnavailableError) || request.onNoAnswer === 'throw') throw error;
    // No answer: a definite decline recorded first, then whatever may have happened reversed
    // (a sweeper that recorded an approval meanwhile wins, and nothing is reversed): within the
    // request where a second call fits in its time, else by the sweeper from that record.
    const reverse = processorTiming().reversesWithinRequest ? 'now' : 'later';
    return (await giveUpSale(request, 'the processor did not answer', now, { reverse })).transaction;
  }
  return settle(answered(pending, result, (at) => processor.settlementTime(at)));
}

/**
 * The processor's timeout reversal of a sale's key, with its method's token while the method is
 * saved: Stripe then looks the charge up among the payor's own PaymentIntents, not the whole
 * connected account's, which it gives up on past a bounded number of pages (on an account busy
 * with a slot's charges the reversal never ran, the sale recorded Declined 96 and the charge kept).
 */
export async function reverseSaleKey(
  txn: Pick<
    Transaction,
    'processorKey' | 'merchantId' | 'payorId' | 'savedPaymentMethodId' | 'cardUseAt' | 'processedAt'
  >,
  key = txn.processorKey ?? '',
): Promise<void> {
  const method =
    txn.payorId !== undefined && txn.savedPaymentMethodId !== undefined
      ? await methodStore().findMethod(txn.payorId, txn.savedPaymentMethodId, txn.merchantId)
      : undefined;
  await paymentProcessor().reverseUnanswered({
    idempotencyKey: key,
    merchantId: txn.merchantId,
    keyFirstUsedAt: keyFirstUsedAt(txn),
    ...(method?.processorToken !== undefined && { token: method.processorToken }),
  });
}

/**
 * The record of a sale given up on before it was begun (a batch's payment the processor's outage
 * left untried): with its method's account type and card key, as a begun one has them, so that
 * the retry rules decide on what the attempt was on (a bank debit is not retried after a `96`).
 */
async function neverBegun(request: Omit<SaleRequest, 'missingMethod'>, now: Date): Promise<Transaction> {
  const { payorId, savedPaymentMethodId } = parseProfileId(request.profileId);
  const method = await methodStore().findMethod(payorId, savedPaymentMethodId, request.merchantId);
  return { ...pendingSale({ ...request, missingMethod: 'decline' }, now), ...(method && cardOf(method)) };
}

/**
 * Gives up on a sale that may have charged (a payment out of retries, a Pending sale whose method
 * is gone): a Declined 96 record with `reversalDue` is written first, conditionally on the sale
 * being absent or Pending, so that a charge still in flight can no longer record an approval;
 * then the processor reverses the key. If the processor cannot be reached (or the caller defers
 * the reversal: `reverse: 'later'`), the record keeps its sweep entry and the sweeper reverses
 * later. `abandoned` is false when the sale had an answer.
 */
export async function giveUpSale(
  request: Omit<SaleRequest, 'missingMethod'>,
  reason: string,
  now: Date,
  // 'later': the processor is not asked now (it is what failed); the sweeper reverses.
  options: { reverse?: 'now' | 'later' } = {},
): Promise<{ transaction: Transaction; abandoned: boolean }> {
  const transactions = transactionStore();
  const found = (await transactions.find(request.transactionId))?.transaction;
  if (found && found.status !== 'Pending' && !found.reversalDue)
    return { transaction: found, abandoned: false };
  const tombstone: Transaction = {
    ...(found ?? (await neverBegun(request, now))),
    status: 'Declined',
    responseCode: '96',
    responseMessage: REVERSED_MESSAGE,
    approvedCents: 0,
    processedAt: now.toISOString(),
    reversalDue: true,
  };
  const stored = found?.reversalDue ? found : await transactions.settleSale(tombstone);
  if (!stored.reversalDue) return { transaction: stored, abandoned: false };
  logger.info('giving up on a sale', { transactionId: stored.transactionId, reason });
  await duplicateGuards().releaseGuard(duplicateKey(stored), stored.transactionId);
  if (options.reverse === 'later') {
    logger.info('timeout reversal left to the sweeper', { transactionId: stored.transactionId });
  } else {
    try {
      await reverseSaleKey(stored, stored.processorKey ?? request.processorKey);
      await transactions.reversalDone(stored.transactionId);
    } catch (error) {
      if (!(error instanceof ProcessorUnavailableError)) throw error;
      logger.warn('timeout reversal left to the sweeper', { transactionId: stored.transactionId });
    }
  }
  const { reversalDue: _due, ...transaction } = stored;
  return { transaction, abandoned: true };
}
