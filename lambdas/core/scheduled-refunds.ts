/**
 * Refunds that a group's void-or-refund scheduled inside the void safety margin before a sale's
 * settlement cut-off (docs/decisions.md "Refunds scheduled inside the void
 * margin"): how a payment shows them, and how the sweeper (core/sweeper.ts) sends them once the
 * cut-off has passed. Scheduling them is core/void-or-refund.ts's part. Every refund is sent under
 * the same marks, one asked for now included (sendRefundNow).
 */
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import { disputedRefusal } from '#domain/disputes';
import { reversalEventType } from '#domain/groups';
import { fromCents } from '#domain/money';
import { processorKeys } from '#domain/processor-keys';
import { disputedNow, PENDING_CODE, type Refund, type Transaction } from '#domain/transactions';
import { paymentProcessor } from '#core/processor';
import { config } from '#shared/config';
import { ddb } from '#shared/ddb';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { paymentStore } from '#store/payments';
import { markRefundRefused, markRefundSent } from '#store/refund-sends';
import { transactionStore } from '#store/transactions';

/** A refund as a payment's voidOrRefundResponses shows it. */
export function refundResponse(refund: Refund): VoidOrRefundResponse {
  return {
    type: 'Refund',
    transactionId: refund.refundId,
    status: refund.status,
    amount: fromCents(refund.amountCents),
    // Pending (held or scheduled, not sent yet): the Pending code a sale not answered yet has.
    ...((refund.responseCode !== undefined || refund.status === 'Pending') && {
      responseCode: refund.responseCode ?? PENDING_CODE,
    }),
    ...(refund.responseMessage !== undefined && { responseMessage: refund.responseMessage }),
    ...(refund.responseCode === undefined &&
      refund.sendAfter !== undefined && {
        responseMessage: `Scheduled: inside the void margin of the settlement cut-off; refunded right after it (${refund.sendAfter})`,
      }),
    date: refund.date,
    ...(refund.sendAfter !== undefined && { scheduledFor: refund.sendAfter }),
    ...(refund.heldUntilCleared === true &&
      refund.status === 'Pending' && {
        heldUntilCleared: true as const,
        responseMessage: 'Held until the bank debit clears; sent then, Failed if it is returned first',
      }),
  };
}

/**
 * A scheduled refund's outcome on its payment: it replaces the Pending response (or is added, when
 * the request that scheduled it died before recording it). Idempotent.
 */
async function recordRefundOutcome(refund: Refund, now: Date): Promise<void> {
  const { paymentGroupId, paymentId } = refund;
  if (paymentGroupId === undefined || paymentId === undefined) return;
  const store = paymentStore();
  const response = refundResponse(refund);
  const same = (r: VoidOrRefundResponse) => r.type === 'Refund' && r.transactionId === refund.refundId;
  await withOptimisticRetry(async () => {
    const current = await store.getPayment(paymentGroupId, paymentId);
    if (!current) return true;
    const recorded = current.voidOrRefundResponses ?? [];
    const found = recorded.find(same);
    if (found?.status === response.status && found.responseCode === response.responseCode) return true;
    const next = found
      ? recorded.map((r) => (same(r) ? { ...response, date: r.date } : r))
      : [...recorded, response];
    return (await store.setReversals(current, next, now, reversalEventType(response))) || undefined;
  });
}

/**
 * A scheduled refund of a sale disputed since it was scheduled is never sent (docs/product.md
 * "Disputes": no refund while disputed): the money is with the issuer, and a refund now could pay
 * the cardholder twice. It ends Failed naming the dispute, with the code a refusal of the API
 * answers, and its amount is given back as any failed refund's.
 */
const refusedOutcome = (refund: Refund): Pick<Refund, 'status' | 'responseCode' | 'responseMessage'> => ({
  status: 'Failed',
  responseCode: '400',
  responseMessage: refund.refusal ?? 'refused before it was sent',
});

/** Sends the refund with its own processor key (a replay gets the first answer): its outcome. */
async function sentOutcome(
  txn: Transaction,
  refund: Refund,
): Promise<Pick<Refund, 'status' | 'responseCode' | 'responseMessage'>> {
  const result = await paymentProcessor().refund({
    idempotencyKey: processorKeys.refund(refund.refundId),
    merchantId: txn.merchantId,
    processorTransactionId: txn.processorTransactionId!,
    amountCents: refund.amountCents,
  });
  return {
    status: result.approved ? 'Completed' : 'Failed',
    responseCode: result.responseCode,
    responseMessage: result.responseMessage,
  };
}

/** Settles a refund with its outcome (and whatever else its kind records first). */
type Settle = (
  sale: Transaction,
  refund: Refund,
  outcome: Pick<Refund, 'status' | 'responseCode' | 'responseMessage'>,
) => Promise<Refund>;

/**
 * Sends a Pending refund under its sent and refused marks (store/refund-sends.ts): with its own
 * processor key (a replay gets the first answer) once marked sent, whatever its sale became since
 * (the processor may have made it); not at all when its sale is disputed and it was never sent
 * (marked refused, then refusedOutcome). Each pass either settles the refund or marks it and reads
 * it again; the second pass finds a mark, this run's or a concurrent one's, or the refund settled.
 */
async function sendUnderMarks(txn: Transaction, refund: Refund, now: Date, settle: Settle): Promise<Refund> {
  let sale = txn;
  let current = refund;
  for (let pass = 0; pass < 3; pass++) {
    if (current.status !== 'Pending') return current;
    if (current.refusedAt !== undefined) return settle(sale, current, refusedOutcome(current));
    if (current.sentAt !== undefined) return settle(sale, current, await sentOutcome(sale, current));
    const at = now.toISOString();
    if (disputedNow(sale)) {
      await markRefundRefused(ddb(), config().tableName, current, at, disputedRefusal(sale, 'refunded'));
    } else if (await markRefundSent(ddb(), config().tableName, current, at)) {
      // Marked (by this run or an earlier one): nothing can refuse it now.
      return settle(sale, current, await sentOutcome(sale, current));
    }
    const found = await transactionStore().find(sale.transactionId);
    const again = found?.refunds.find((r) => r.refundId === current.refundId);
    if (found === undefined || again === undefined) return current;
    sale = found.transaction;
    current = again;
  }
  throw new Error(`refund ${refund.refundId} neither marked sent nor refused after 3 reads`);
}

/**
 * The sweeper's part (core/sweeper.ts): sends a scheduled refund whose cut-off has passed under its
 * marks (sendUnderMarks), shows the outcome on the payment, and only then settles the refund
 * (Completed, or Failed with its amount given back), which drops its sweep entry: a crash anywhere
 * before that leaves it Pending for the next sweep. The same for a refund held until its debit
 * cleared, sent by the clearing's follow-up (core/notice-follow-ups.ts), which stays written until
 * it is done; a refund of a sale of the transactions API is announced (refund.completed,
 * refund.failed) with its outcome.
 */
export const sendScheduledRefund = (txn: Transaction, refund: Refund, now: Date): Promise<Refund> =>
  sendUnderMarks(txn, refund, now, (sale, current, outcome) => finish(sale, current, outcome, now));

/**
 * A refund sent when it is asked for (core/reversals.ts refundSale, and the sweeper's resumption
 * of one a crash left Pending), under the same marks: one reserved before a crash whose sale was
 * disputed before it was resumed is never sent (the cardholder would be paid twice). Its outcome
 * settles it (announced for the transactions API); a scheduled payment's void-or-refund records it
 * on the payment itself.
 */
export const sendRefundNow = (txn: Transaction, refund: Refund, now: Date): Promise<Refund> =>
  sendUnderMarks(txn, refund, now, (sale, current, outcome) =>
    transactionStore().finishRefund(
      current,
      outcome,
      sale.paymentId === undefined ? sale.merchantId : undefined,
    ),
  );

/** Shows the outcome on the payment, then settles the refund (announced for the transactions API). */
async function finish(
  txn: Transaction,
  refund: Refund,
  outcome: Pick<Refund, 'status' | 'responseCode' | 'responseMessage'>,
  now: Date,
): Promise<Refund> {
  await recordRefundOutcome({ ...refund, ...outcome }, now);
  return transactionStore().finishRefund(
    refund,
    outcome,
    txn.paymentId === undefined ? txn.merchantId : undefined,
  );
}
