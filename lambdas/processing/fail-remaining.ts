import { giveUpOnCharge } from '#core/unanswered';
import { countOutcome, type ProcessingState } from '#domain/processing';
import { transactionIdOf } from './authorize-batch';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { paymentStore } from '#store/payments';

/**
 * State machine task FailRemaining (after AuthorizeBatch ran out of retries): every payment from
 * the cursor on that has no authResponse gets a failed one, so the group completes and each
 * payment says what happened to it.
 */
export const handler = taskHandler(
  async (
    state: ProcessingState & { error?: { Error?: string; Cause?: string } },
  ): Promise<ProcessingState> => {
    logger.appendKeys({ paymentGroupId: state.paymentGroupId, merchantId: state.merchantId });
    logger.error('authorizing failed after retries; failing the remaining payments', { error: state.error });
    const store = paymentStore();
    const reason = state.error?.Error ?? 'processing error';
    const totals = { ...state.totals };
    let cursor = state.cursor;
    do {
      const page = await store.paymentsAfter(state.paymentGroupId, cursor, 500);
      for (const payment of page.payments) {
        let current = payment;
        if (!payment.deleted && !payment.authResponse) {
          // A charge may have happened before the batch died: keep its record, or reverse it.
          const authResponse = await giveUpOnCharge(
            payment,
            transactionIdOf(payment.paymentId),
            state.merchantId,
            reason,
          );
          current = (await store.setAuthResponse(payment, authResponse, new Date()))
            ? { ...payment, authResponse }
            : ((await store.getPayment(payment.paymentGroupId, payment.paymentId)) ?? payment);
        }
        countOutcome(totals, current);
      }
      cursor = page.cursor;
    } while (cursor);
    const { error: _error, ...rest } = state;
    return { ...rest, cursor: null, totals };
  },
);
