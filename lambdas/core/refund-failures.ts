/**
 * A refund that failed after the processor accepted it (docs/product.md "Voids and refunds",
 * docs/architecture.md "Notices"): the `refund_failed` notice applied once (core/notices.ts). The
 * rules are domain/refund-failures.ts; the one transaction (the notice's mark, the refund Failed,
 * its sale's and its payment's amounts given back, `refund.failed`) is store/refund-failures.ts. A
 * record that changed between the read and the write is read again.
 *
 * A failed refund that is no refund of the service is skipped, named in the log as an error: the
 * money did not go back and no record of the service shows it. So is a void's (where a void is a
 * refund by another name, Stripe): its sale stays Voided; the operator settles it with the payor.
 */
import { outcome, type NoticeOutcome } from '#domain/notices';
import { parseProcessorKey, saleIdOfKey } from '#domain/processor-keys';
import {
  failedAfterAcceptance,
  paymentAfterRefundFailure,
  refundFailureDecision,
  refundFailureSequence,
} from '#domain/refund-failures';
import { refundEvent, type Refund } from '#domain/transactions';
import type { ProcessorNotice } from '#processor/processor';
import { logger } from '#shared/logger';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { paymentStore } from '#store/payments';
import { refundFailureStore, type RefundFailureChange } from '#store/refund-failures';
import { transactionStore } from '#store/transactions';

type RefundFailedNotice = Extract<ProcessorNotice, { kind: 'refund_failed' }>;

/** A failure the service records nowhere: skipped, and named in the log for the operator. */
function unrecorded(notice: RefundFailedNotice, why: string): NoticeOutcome {
  logger.error(
    'a refund failed at the processor that no refund of the service can show: settle it with the payor',
    {
      noticeId: notice.noticeId,
      processorRefundId: notice.refund.processorRefundId,
      processorKey: notice.refund.idempotencyKey,
      reason: notice.refund.reason,
    },
  );
  return outcome('skipped', why);
}

/** Applies one refund failure once: what it came to. */
export async function applyRefundFailure(notice: RefundFailedNotice, now: Date): Promise<NoticeOutcome> {
  const key = parseProcessorKey(notice.refund.idempotencyKey);
  if (key?.kind === 'void')
    return unrecorded(
      notice,
      `the processor's refund that voided sale ${key.transactionId} failed (${notice.refund.reason}): the sale stays Voided, the money was not given back`,
    );
  if (key?.kind !== 'refund')
    return unrecorded(notice, `its key names no refund of the service (${notice.refund.idempotencyKey})`);
  const transactionId = saleIdOfKey(notice.charge.idempotencyKey);
  if (transactionId === undefined)
    return unrecorded(
      notice,
      `its charge's key names no sale of the service (${notice.charge.idempotencyKey})`,
    );
  return withOptimisticRetry(
    async () => {
      const found = await transactionStore().find(transactionId);
      const decision = refundFailureDecision(found, key.refundId, notice.merchantId);
      if (decision.outcome !== 'apply') return outcome(decision.outcome, decision.reason);
      const sale = found!.transaction;
      const failed: Refund = { ...decision.refund, ...failedAfterAcceptance(notice.refund.reason) };
      const previous =
        sale.paymentId !== undefined && sale.paymentGroupId !== undefined
          ? await paymentStore().getPayment(sale.paymentGroupId, sale.paymentId)
          : undefined;
      const next = previous && paymentAfterRefundFailure(previous, failed, now);
      const change: RefundFailureChange = {
        notice,
        refund: failed,
        event: refundEvent('refund.failed', failed, sale.merchantId, now, sale, refundFailureSequence(sale)),
        ...(previous && next && { payment: { previous, next } }),
      };
      const written = await refundFailureStore().write(change, now);
      if (written === 'changed') return undefined; // read again
      return outcome(written === 'ok' ? 'applied' : 'applied_before');
    },
    { resource: 'this refund' },
  );
}
