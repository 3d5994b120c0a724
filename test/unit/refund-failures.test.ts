/**
 * A refund that failed after the processor accepted it: Stripe's refund events as `refund_failed`
 * notices (lambdas/processor/stripe/notices.ts), and the rules that apply one
 * (lambdas/domain/refund-failures.ts).
 */
import type Stripe from 'stripe';
import type { Payment } from '#domain/groups';
import {
  failedAfterAcceptance,
  paymentAfterRefundFailure,
  refundFailureDecision,
  refundFailureSequence,
} from '#domain/refund-failures';
import type { Refund, Transaction } from '#domain/transactions';
import { noticeOfEvent } from '#processor/stripe/notices';

const AT = 1_900_000_000;
const MERCHANT = '32350000001';
const intent = {
  id: 'pi_unitcard',
  object: 'payment_intent',
  amount: 3000,
  payment_method_types: ['card'],
  metadata: { processor_key: 'sale:unit-sale' },
} as unknown as Stripe.PaymentIntent;

const refundEventOf = (type: string, refund: Record<string, unknown>) =>
  ({
    id: `evt_${type.replace(/\W/g, '_')}`,
    type,
    created: AT,
    data: {
      object: {
        id: 're_unit',
        object: 'refund',
        amount: 1200,
        payment_intent: intent.id,
        metadata: { processor_key: 'refund:unit-refund' },
        ...refund,
      },
      previous_attributes: { status: 'succeeded' },
    },
  }) as unknown as Stripe.Event;

const read = (event: Stripe.Event) => noticeOfEvent(event, MERCHANT, 'acct_unit', async () => intent);

describe('Stripe’s refund events as notices', () => {
  it.each(['charge.refund.updated', 'refund.updated', 'refund.failed'])(
    '%s of a failed refund is a refund_failed notice of the refund, its charge and Stripe’s reason',
    async (type) => {
      expect(
        await read(refundEventOf(type, { status: 'failed', failure_reason: 'lost_or_stolen_card' })),
      ).toEqual({
        noticeId: `evt_${type.replace(/\W/g, '_')}`,
        merchantId: MERCHANT,
        objectId: 're_unit',
        sequence: AT * 1000,
        occurredAt: new Date(AT * 1000).toISOString(),
        kind: 'refund_failed',
        charge: { processorTransactionId: intent.id, idempotencyKey: 'sale:unit-sale' },
        refund: {
          processorRefundId: 're_unit',
          idempotencyKey: 'refund:unit-refund',
          amountCents: 1200,
          reason: 'lost_or_stolen_card',
        },
      });
    },
  );

  it('a canceled refund fails as `canceled`; a reason Stripe left out or garbled is `unknown`', async () => {
    expect(await read(refundEventOf('refund.updated', { status: 'canceled' }))).toMatchObject({
      refund: { reason: 'canceled' },
    });
    expect(
      await read(refundEventOf('refund.failed', { status: 'failed', failure_reason: null })),
    ).toMatchObject({
      refund: { reason: 'unknown' },
    });
    expect(
      await read(refundEventOf('refund.failed', { status: 'failed', failure_reason: '<script>' })),
    ).toMatchObject({ refund: { reason: 'unknown' } });
  });

  it('a refund that succeeded or is pending, or that the service did not make, is no notice', async () => {
    expect(await read(refundEventOf('refund.updated', { status: 'succeeded' }))).toBeUndefined();
    expect(await read(refundEventOf('charge.refund.updated', { status: 'pending' }))).toBeUndefined();
    expect(await read(refundEventOf('refund.failed', { status: 'failed', metadata: {} }))).toBeUndefined();
    expect(
      await noticeOfEvent(
        refundEventOf('refund.failed', { status: 'failed' }),
        MERCHANT,
        'acct_unit',
        async () => ({ ...intent, metadata: {} }) as Stripe.PaymentIntent,
      ),
    ).toBeUndefined();
  });
});

describe('a refund’s failure applied', () => {
  const sale = {
    transactionId: 't1',
    merchantId: MERCHANT,
    refundedCents: 1200,
    refundCount: 1,
  } as Transaction;
  const refund: Refund = {
    refundId: 'r1',
    transactionId: 't1',
    amountCents: 1200,
    status: 'Completed',
    date: '2030-03-01T00:00:00.000Z',
  };
  const decide = (refunds: Refund[], merchantId = MERCHANT) =>
    refundFailureDecision({ transaction: sale, refunds }, 'r1', merchantId);

  it('applies to a Completed refund; held while its sale, its refund or its answer is not recorded; a Failed one is stale', () => {
    expect(decide([refund])).toEqual({ outcome: 'apply', refund });
    expect(refundFailureDecision(undefined, 'r1', MERCHANT)).toMatchObject({ outcome: 'held' });
    expect(decide([])).toMatchObject({ outcome: 'held', reason: 'no refund is recorded for it yet' });
    expect(decide([{ ...refund, status: 'Pending' }])).toMatchObject({ outcome: 'held' });
    expect(decide([{ ...refund, status: 'Failed' }])).toMatchObject({ outcome: 'stale' });
    expect(decide([refund], '32350000002')).toMatchObject({ outcome: 'skipped' });
  });

  it('says why, in the processor’s words; announced after refund.completed for the API’s sale', () => {
    expect(failedAfterAcceptance('expired_or_canceled_card')).toEqual({
      status: 'Failed',
      responseCode: '05',
      responseMessage: expect.stringContaining('(expired_or_canceled_card)'),
    });
    expect(refundFailureSequence(sale)).toBe(2);
    expect(refundFailureSequence({ ...sale, paymentId: 'p1' })).toBe(1);
  });

  it('shows Failed on the scheduled payment that shows the refund, once', () => {
    const failed = { ...refund, ...failedAfterAcceptance('unknown') };
    const payment = {
      lastUpdated: '2030-03-01T00:00:00.000Z',
      voidOrRefundResponses: [
        { type: 'Refund', transactionId: 'r1', status: 'Completed', amount: 12, date: refund.date },
      ],
    } as unknown as Payment;
    const now = new Date('2030-03-02T00:00:00.000Z');
    const after = paymentAfterRefundFailure(payment, failed, now)!;
    expect(after.voidOrRefundResponses).toEqual([
      expect.objectContaining({
        status: 'Failed',
        responseCode: '05',
        responseMessage: failed.responseMessage,
      }),
    ]);
    expect(after.lastUpdated).toBe(now.toISOString());
    expect(paymentAfterRefundFailure(after, failed, now)).toBeUndefined();
    expect(paymentAfterRefundFailure({ ...payment, voidOrRefundResponses: [] }, failed, now)).toBeUndefined();
  });
});
