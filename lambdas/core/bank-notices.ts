/**
 * A bank debit's clearing and return (docs/product.md "Returns"): applied to its sale, and to the
 * scheduled payment it charged, once (core/notices.ts). The rules are domain/bank-notices.ts; the
 * one transaction (the notice's mark, the sale, the payment, their events, the cancelled held
 * refunds, the follow-up written ahead) is store/bank-notices.ts. A record that changed between
 * the read and the write is read again (optimistic concurrency's one loop).
 */
import {
  bankNoticeDecision,
  bankNoticeEventType,
  cancelledRefundOutcome,
  clearedSale,
  debitReturn,
  paymentAfterNotice,
  refundsCancelledBy,
  returnedSale,
  returnFollowUps,
} from '#domain/bank-notices';
import { nextSequence } from '#domain/events';
import { paymentEvent, type Payment } from '#domain/groups';
import { outcome, type NoticeFollowUp, type NoticeOutcome } from '#domain/notices';
import { saleIdOfKey } from '#domain/processor-keys';
import { refundEvent, transactionEvent, type Refund, type Transaction } from '#domain/transactions';
import type { ProcessorNotice } from '#processor/processor';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { bankNoticeStore, type BankNoticeChange } from '#store/bank-notices';
import { paymentStore } from '#store/payments';
import { transactionStore, type SaleWithRefunds } from '#store/transactions';

type BankNotice = Extract<ProcessorNotice, { kind: 'cleared' | 'returned' }>;

/** The sale after the notice, the refunds it cancels (as after) and the follow-up it leaves. */
function changeOf(
  notice: BankNotice,
  { transaction: txn, refunds }: SaleWithRefunds,
): { next: Transaction; cancelled: Refund[]; followUps: NoticeFollowUp[] } {
  if (notice.kind === 'cleared') {
    const held = refunds.filter((r) => r.status === 'Pending' && r.heldUntilCleared === true);
    return {
      next: clearedSale(txn, notice.clearedAt, notice.sequence),
      cancelled: [],
      // Refunds held until the debit cleared are sent now, after the clearing is written.
      followUps:
        held.length > 0
          ? [
              {
                kind: 'refunds' as const,
                merchantId: txn.merchantId,
                transactionId: txn.transactionId,
                refundIds: held.map((r) => r.refundId),
              },
            ]
          : [],
    };
  }
  const ret = debitReturn(notice, refunds);
  const cancelled = refundsCancelledBy(refunds);
  const next = returnedSale(txn, ret, notice.sequence, cancelled);
  return {
    next,
    cancelled: cancelled.map((r) => ({ ...r, ...cancelledRefundOutcome(ret) })),
    followUps: returnFollowUps(next, ret),
  };
}

/**
 * The payment the sale charged, as it is after the notice (with the held refunds the notice
 * cancelled), with its event (none: unchanged).
 */
async function paymentChange(
  notice: BankNotice,
  next: Transaction,
  cancelled: readonly Refund[],
  now: Date,
): Promise<BankNoticeChange['payment']> {
  if (next.paymentId === undefined || next.paymentGroupId === undefined) return undefined;
  const previous = await paymentStore().getPayment(next.paymentGroupId, next.paymentId);
  if (!previous) return undefined;
  const after = paymentAfterNotice(previous, next, now, cancelled);
  if (!after) return undefined;
  const announced: Payment = { ...after, eventSeq: nextSequence(previous.eventSeq) };
  return {
    previous,
    next: announced,
    event: paymentEvent(bankNoticeEventType(notice.kind, true), announced, now),
  };
}

/** Applies one clearing or return once: what it came to. */
export async function applyBankNotice(notice: BankNotice, now: Date): Promise<NoticeOutcome> {
  const transactionId = saleIdOfKey(notice.charge.idempotencyKey);
  if (transactionId === undefined)
    return outcome(
      'skipped',
      `its charge's key names no sale of the service (${notice.charge.idempotencyKey})`,
    );
  return withOptimisticRetry(
    async () => {
      const found = await transactionStore().find(transactionId);
      if (found && found.transaction.merchantId !== notice.merchantId)
        return outcome('skipped', 'its sale is of another merchant');
      const decision = bankNoticeDecision(notice.kind, notice.sequence, found);
      if (decision.outcome !== 'apply') return outcome(decision.outcome, decision.reason);
      const sale = found!;
      const { next, cancelled, followUps } = changeOf(notice, sale);
      const ofApi = next.paymentId === undefined;
      const announcedSale: Transaction = ofApi ? { ...next, eventSeq: nextSequence(next.eventSeq) } : next;
      const payment = await paymentChange(notice, next, cancelled, now);
      const change: BankNoticeChange = {
        notice,
        sale: { previous: sale.transaction, next },
        ...(ofApi && {
          saleEvent: transactionEvent(
            bankNoticeEventType(notice.kind, false),
            announcedSale,
            now,
            sale.refunds.map((r) => cancelled.find((c) => c.refundId === r.refundId) ?? r),
          ),
        }),
        cancelledRefunds: cancelled,
        // A held refund of the API's sale cancelled: announced as its other outcomes are.
        refundEvents: ofApi
          ? cancelled.map((r) => refundEvent('refund.failed', r, next.merchantId, now, next))
          : [],
        ...(payment && { payment }),
        followUps,
      };
      const written = await bankNoticeStore().write(change, now);
      if (written === 'changed') return undefined; // read again
      return outcome(written === 'ok' ? 'applied' : 'applied_before');
    },
    { resource: 'this sale' },
  );
}
