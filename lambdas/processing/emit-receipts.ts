/**
 * State machine task EmitReceipts (after the Wait for the settlement cut-off): one receipt
 * outbox item per approved payment whose `sendEmailReceipt` is true as the payment stands now
 * (PUT could change it until processing began) and whose sale is not voided. Pages through the
 * payments with its own cursor; the item id `receipt:<paymentId>` makes a retried page, or a
 * re-drive of a processed group whose earlier execution closed before its receipts were all
 * queued (issue 13, defect 9), queue only the receipts not queued yet.
 */
import type { ProcessingState } from '#domain/processing';
import { parseProfileId } from '#domain/payors';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { findMerchant } from '#core/merchants';
import { taskHandler } from '#shared/task';
import { queueReceipt, receiptsQueued } from '#core/processing-run';
import { paymentsAfter } from '#core/payments';
import { emailsOf } from '#core/payors';
import { findTransaction } from '#core/transactions';

export interface ReceiptState extends ProcessingState {
  receiptsQueued?: number;
}

export const handler = taskHandler(async (state: ReceiptState): Promise<ReceiptState> => {
  logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
  const { payments, cursor } = await paymentsAfter(
    state.paymentGroupId,
    state.receiptCursor,
    config().receiptsPageSize,
  );
  const due = payments.filter(
    (p) => !p.deleted && p.sendEmailReceipt && p.authResponse?.status === 'Approved',
  );
  let queued = 0;
  if (due.length > 0) {
    const merchant = await findMerchant(state.merchantId);
    const emails = await emailsOf(
      due.map((p) => parseProfileId(p.profileId).payorId),
      state.merchantId,
    );
    const now = new Date();
    for (const payment of due) {
      const email = emails.get(parseProfileId(payment.profileId).payorId);
      const auth = payment.authResponse;
      const transactionId = auth?.status === 'Approved' ? auth.transactionId : undefined;
      if (!email || !transactionId) continue;
      const found = await findTransaction(transactionId);
      if (!found || found.transaction.status !== 'Approved') continue; // voided before settlement: no receipt
      const txn = found.transaction;
      const written = await queueReceipt({
        outboxId: `receipt:${payment.paymentId}`,
        kind: 'receipt',
        recipient: email,
        status: 'pending',
        attempts: 0,
        createdAt: now.toISOString(),
        paymentGroupId: payment.paymentGroupId,
        data: {
          merchantName: merchant?.name ?? state.merchantId,
          amountCents: txn.amountCents,
          approvedCents: txn.approvedCents,
          maskedAccountNumber: txn.maskedAccountNumber ?? '',
          accountType: txn.accountType ?? '',
          transactionId: txn.transactionId,
          date: txn.processedAt.slice(0, 10),
          paymentId: payment.paymentId,
          ...(payment.orderId !== undefined && { orderId: payment.orderId }),
        },
      });
      if (written) queued++;
    }
  }
  logger.info('receipts queued', { queued, page: payments.length });
  // All queued: the group leaves the due index (until then a closed execution is re-driven).
  if (cursor === null) await receiptsQueued(state.paymentGroupId, new Date());
  return {
    ...state,
    receiptCursor: cursor,
    receiptsDone: cursor === null,
    receiptsQueued: (state.receiptsQueued ?? 0) + queued,
  };
});
