/**
 * POST /rest/merchants/{MID}/groups/{GroupID}/void-or-refund, optional `{paymentIds: [...]}`:
 * reverses the group's approved payments: a void before settlement, a refund of the available
 * amount after. Payments never charged (pending, deleted, declined, failed) are skipped. Safe to
 * call twice: a payment with a recorded reversal is skipped, and the reversal's ids are derived
 * from the payment, so even a repeat racing the first reverses nothing twice.
 */
import { v5 as uuidv5 } from 'uuid';
import { refundSale, voidSale } from '#core/reversals';
import type { Payment } from '#domain/groups';
import { fromCents } from '#domain/money';
import { availableRefundCents, isSettled } from '#domain/transactions';
import { mapLimit } from '#shared/concurrency';
import { BadRequestError, ServiceError } from '#shared/errors';
import { merchantRoute } from '#shared/http';
import { logger } from '#shared/logger';
import { voidOrRefundSchema, type VoidOrRefundInput } from '#shared/schemas';
import { validator } from '#shared/validation';
import { groupStore, requireGroup } from '#store/groups';
import { transactionStore } from '#store/transactions';

const schema = validator<VoidOrRefundInput>(voidOrRefundSchema);
const parse = (value: unknown): VoidOrRefundInput => (value === undefined ? {} : schema(value));

const REVERSAL_NAMESPACE = 'f0a3c1d2-7b4e-4c8a-9e21-5d6f7a8b9c0d';

type Outcome = 'voided' | 'refunded' | 'skipped' | 'failed';
interface PaymentOutcome {
  paymentId: string;
  outcome: Outcome;
  response?: Record<string, unknown>;
  reason?: string;
}

async function reverse(payment: Payment, merchantId: string, now: Date): Promise<PaymentOutcome> {
  const { paymentId } = payment;
  const auth = payment.authResponse as { status?: string; transactionId?: string } | null;
  if (!auth || auth.status !== 'Approved' || !auth.transactionId) {
    return {
      paymentId,
      outcome: 'skipped',
      reason: payment.deleted ? 'deleted' : auth ? `not approved (${auth.status})` : 'not processed',
    };
  }
  if ((payment.voidOrRefundResponses ?? []).some((r) => r.status !== 'Failed')) {
    return { paymentId, outcome: 'skipped', reason: 'already reversed' };
  }
  const { transaction } = await transactionStore().require(auth.transactionId, merchantId);
  let response: Record<string, unknown>;
  let outcome: Outcome;
  if (transaction.status === 'Voided' || !isSettled(transaction, now)) {
    const voided = await voidSale(merchantId, transaction.transactionId, now);
    outcome = 'voided';
    response = {
      type: 'Void',
      transactionId: voided.transactionId,
      status: 'Voided',
      amount: fromCents(voided.approvedCents),
      responseCode: '00',
      responseMessage: 'Voided',
      date: voided.voidedAt ?? now.toISOString(),
    };
  } else {
    // One refund per payment; after a failed one (recorded), the next attempt gets a new id.
    const failedBefore = (payment.voidOrRefundResponses ?? []).filter((r) => r.status === 'Failed').length;
    const refundId = uuidv5(`reversal:${paymentId}:${failedBefore}`, REVERSAL_NAMESPACE);
    const available = availableRefundCents(transaction);
    const { refunds } = await transactionStore().require(transaction.transactionId, merchantId);
    if (available === 0 && !refunds.some((r) => r.refundId === refundId)) {
      return { paymentId, outcome: 'skipped', reason: 'nothing left to refund' };
    }
    const { refund } = await refundSale(merchantId, transaction.transactionId, available, refundId, now);
    outcome = refund.status === 'Failed' ? 'failed' : 'refunded';
    response = {
      type: 'Refund',
      transactionId: refund.refundId,
      status: refund.status,
      amount: fromCents(refund.amountCents),
      responseCode: refund.responseCode,
      responseMessage: refund.responseMessage,
      date: refund.date,
    };
  }
  // Record it on the payment once (a concurrent repeat records the same reversal).
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = (await groupStore().getPayment(payment.paymentGroupId, paymentId)) ?? payment;
    const recorded = current.voidOrRefundResponses ?? [];
    if (recorded.some((r) => r.transactionId === response.transactionId && r.type === response.type)) break;
    if (await groupStore().setReversals(current, [...recorded, response], now)) break;
  }
  return { paymentId, outcome, response };
}

export const handler = merchantRoute(
  { body: parse, bodyOptional: true },
  async ({ merchant, params, body, now }) => {
    const group = await requireGroup(params.GroupID!, merchant.merchantId);
    let payments = await groupStore().listPayments(group.paymentGroupId);
    if (body.paymentIds) {
      const byId = new Map(payments.map((p) => [p.paymentId, p]));
      payments = body.paymentIds.map((id, i) => {
        const payment = byId.get(id.toLowerCase());
        if (!payment) throw new BadRequestError(`paymentIds[${i}] ${id} is not a payment of this group`);
        return payment;
      });
      payments = [...new Map(payments.map((p) => [p.paymentId, p])).values()];
    }
    const outcomes = await mapLimit(payments, 8, async (payment): Promise<PaymentOutcome> => {
      try {
        return await reverse(payment, merchant.merchantId, now);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        logger.warn('reversal refused', { paymentId: payment.paymentId, reason: error.message });
        return { paymentId: payment.paymentId, outcome: 'failed', reason: error.message };
      }
    });
    const count = (o: Outcome) => outcomes.filter((x) => x.outcome === o).length;
    return {
      status: 200,
      body: {
        paymentGroupId: group.paymentGroupId,
        voidedCount: count('voided'),
        refundedCount: count('refunded'),
        skippedCount: count('skipped'),
        failedCount: count('failed'),
        payments: outcomes,
      },
    };
  },
);
