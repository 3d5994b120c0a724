/**
 * The receipts of a processed group (the state machine's EmitReceipts task, after the settlement
 * cut-off): one receipt outbox item per approved payment whose `sendEmailReceipt` is true as the
 * payment stands now (PUT could change it until processing began) and whose sale is not voided.
 * The item id `receipt:<paymentId>` makes a retried page, or a re-drive of a processed group whose
 * earlier execution closed before its receipts were all queued, queue only the receipts not
 * queued yet.
 *
 * Fanned out like processing: the state machine's Map (QueueReceipts) runs one iteration per
 * receipt range of the group (its key ranges, up to PROCESS_FAN_OUT at once), each paging through
 * its range, one page (RECEIPTS_PAGE_SIZE) per invocation, the page's receipts
 * RECEIPTS_CONCURRENCY at once; ReceiptsQueued takes the group out of the due index once every
 * range is done. Queuing one receipt after another took about 20 ms each in the cloud (a sale read
 * and an outbox write): 100,000 receipts in about 33 minutes.
 *
 * An execution started before the fan-out (a deploy mid-run) still calls the task with the whole
 * group's state (no `receiptRange`): it pages through the whole group, and its last page takes the
 * group out of the due index, as before.
 */
import { RECEIPTS_CONCURRENCY } from '#contract/processing';
import { attemptsOf, type Payment } from '#domain/groups';
import type { ProcessingState, ReceiptRange } from '#domain/processing';
import { parseProfileId } from '#domain/payors';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { findMerchant } from './merchants';
import { paymentsInRange, queueReceipt, receiptsQueued } from './processing-run';
import { emailsOf } from './payors';
import { findTransaction } from './transactions';
import { clock } from '#shared/clock';

/** What an execution started before the fan-out passes: the whole group's state. */
export interface ReceiptState extends ProcessingState {
  receiptsQueued?: number;
}

export type ReceiptInput = ReceiptRange | ReceiptState;

const isRange = (input: ReceiptInput): input is ReceiptRange =>
  typeof (input as Partial<ReceiptRange>).receiptRange === 'number';

/**
 * A receipt's outbox id: one per payment (`receipt:<paymentId>`), so that a run queued again sends
 * none twice. A payment charged again after its debit was returned (its first receipt may have
 * gone out, and no longer stands) has one per approved attempt (`receipt:<paymentId>:<attempt>`).
 */
function receiptOutboxId(payment: Payment): string {
  const attempts = attemptsOf(payment);
  return attempts.slice(0, -1).some((a) => a.status === 'Returned')
    ? `receipt:${payment.paymentId}:${attempts.length}`
    : `receipt:${payment.paymentId}`;
}

/** Queues the receipts due among `payments`, RECEIPTS_CONCURRENCY at once; how many were new. */
async function queueReceipts(merchantId: string, payments: Payment[]): Promise<number> {
  const due = payments.filter(
    (p) => !p.deleted && p.sendEmailReceipt && p.authResponse?.status === 'Approved',
  );
  if (due.length === 0) return 0;
  const merchant = await findMerchant(merchantId);
  const emails = await emailsOf(
    due.map((p) => parseProfileId(p.profileId).payorId),
    merchantId,
  );
  const now = clock.now();
  const written = await mapLimit(due, RECEIPTS_CONCURRENCY, async (payment) => {
    const email = emails.get(parseProfileId(payment.profileId).payorId);
    const auth = payment.authResponse;
    const transactionId = auth?.status === 'Approved' ? auth.transactionId : undefined;
    if (!email || !transactionId) return false;
    const found = await findTransaction(transactionId);
    // Voided before settlement, or its void reserved (the sweeper finishes it whatever the time;
    // one the processor then refuses leaves the sale without its receipt): no receipt.
    if (!found || found.transaction.status !== 'Approved' || found.transaction.voidingAt !== undefined)
      return false;
    const txn = found.transaction;
    return queueReceipt({
      outboxId: receiptOutboxId(payment),
      kind: 'receipt',
      recipient: email,
      status: 'pending',
      attempts: 0,
      createdAt: now.toISOString(),
      paymentGroupId: payment.paymentGroupId,
      data: {
        merchantName: merchant?.name ?? merchantId,
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
  });
  return written.filter(Boolean).length;
}

/** One page of `input`'s receipts queued; the state with the page's cursor and count. */
export async function queueReceiptsPage(input: ReceiptInput): Promise<ReceiptInput> {
  const upTo = isRange(input) ? input.upTo : null;
  const { payments, cursor } = await paymentsInRange(
    input.paymentGroupId,
    input.receiptCursor,
    upTo,
    config().receiptsPageSize,
  );
  const queued = await queueReceipts(input.merchantId, payments);
  logger.info('receipts queued', {
    queued,
    page: payments.length,
    ...(isRange(input) && { range: input.receiptRange }),
  });
  // The whole group's loop (an execution started before the fan-out): its last page takes the group
  // out of the due index. A range leaves that to ReceiptsQueued, after every range is done.
  if (!isRange(input) && cursor === null) await receiptsQueued(input.paymentGroupId, clock.now());
  return {
    ...input,
    receiptCursor: cursor,
    receiptsDone: cursor === null,
    receiptsQueued: (input.receiptsQueued ?? 0) + queued,
  };
}
