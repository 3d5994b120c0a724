/**
 * Card disputes (docs/product.md "Disputes"): applying the processor's dispute notices to the
 * service's dispute records. Called by core/notices.ts for `dispute_opened`, `dispute_updated`
 * and `dispute_closed`; like every kind, the notice's mark,
 * the dispute's change (with the sale and payment that show it) and its events are written in one
 * transaction (store/disputes.ts), the method's revocation through the notice's follow-up. The
 * rules are domain/disputes.ts. A dispute of a bank debit is its unauthorized return: applied on
 * the return path (core/bank-notices.ts). The list and read are core/dispute-list.ts.
 */
import {
  disputeAfter,
  disputeDecision,
  disputeEvents,
  disputeEventTypes,
  disputeFollowUps,
  disputeIdOf,
  showsAsLatest,
} from '#domain/disputes';
import { outcome, type NoticeOutcome } from '#domain/notices';
import { saleIdOfKey } from '#domain/processor-keys';
import type { ProcessorNotice } from '#processor/processor';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { disputeStore, type DisputeChange } from '#store/disputes';
import { paymentStore } from '#store/payments';
import { transactionStore } from '#store/transactions';
import { applyBankNotice } from './bank-notices';
import { paymentProcessor } from './processor';

type DisputeNotice = Extract<
  ProcessorNotice,
  { kind: 'dispute_opened' | 'dispute_updated' | 'dispute_closed' }
>;

/** The code a bank debit's dispute is returned with: the customer advises it was unauthorized. */
const DISPUTED_DEBIT_CODE = 'R10';

/**
 * A bank debit's dispute as its return: `R10`, after any notice of its charge (a return is final,
 * so its order among them does not matter: one after a return is stale anyway).
 */
const asReturn = (notice: DisputeNotice): Extract<ProcessorNotice, { kind: 'returned' }> => ({
  noticeId: notice.noticeId,
  merchantId: notice.merchantId,
  objectId: notice.charge.processorTransactionId,
  sequence: Number.MAX_SAFE_INTEGER,
  occurredAt: notice.occurredAt,
  kind: 'returned',
  charge: notice.charge,
  code: DISPUTED_DEBIT_CODE,
  reason: `Disputed as ${notice.reason}`,
  returnedAt: notice.occurredAt,
});

/** Applies one dispute notice once: what it came to. */
export async function applyDisputeNotice(notice: DisputeNotice, now: Date): Promise<NoticeOutcome> {
  const transactionId = saleIdOfKey(notice.charge.idempotencyKey);
  if (transactionId === undefined)
    return outcome(
      'skipped',
      `its charge's key names no sale of the service (${notice.charge.idempotencyKey})`,
    );
  const store = disputeStore();
  return withOptimisticRetry(
    async () => {
      const found = await transactionStore().find(transactionId);
      const sale = found?.transaction;
      if (sale && sale.merchantId !== notice.merchantId)
        return outcome('skipped', 'its sale is of another merchant');
      const previous = await store.get(disputeIdOf(notice.merchantId, notice.disputeId));
      const decision = disputeDecision(notice, sale, previous, paymentProcessor().voidIsRefund);
      if (decision.outcome === 'return') return applyBankNotice(asReturn(notice), now);
      if (decision.outcome !== 'apply') return outcome(decision.outcome, decision.reason);
      const types = disputeEventTypes(previous, notice);
      const next = disputeAfter(notice, sale!, previous, types.length);
      const payment =
        sale!.paymentId !== undefined && sale!.paymentGroupId !== undefined
          ? await paymentStore().getPayment(sale!.paymentGroupId, sale!.paymentId)
          : undefined;
      const shownOnPayment = payment && showsAsLatest(payment.dispute, next) ? payment : undefined;
      const change: DisputeChange = {
        notice,
        dispute: { ...(previous && { previous }), next },
        events: disputeEvents(types, next, now),
        saleStatus: sale!.status,
        ...(showsAsLatest(sale!.dispute, next) && { sale: sale! }),
        ...(shownOnPayment && { payment: shownOnPayment }),
        followUps: disputeFollowUps(sale!, previous, next, shownOnPayment),
      };
      const written = await store.write(change, now);
      if (written === 'changed') return undefined; // read again
      return outcome(written === 'ok' ? 'applied' : 'applied_before');
    },
    { resource: 'this dispute' },
  );
}
