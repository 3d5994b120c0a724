/**
 * The processor's order of Stripe's notices (lambdas/processor/stripe/notices.ts noticeOfEvent):
 * Stripe dates its events to the second, and a dispute moves on within one (evidence submitted and
 * the dispute closed at once), so the order of one object's notices within a second is read from
 * what they say: a later notice of the same second is never taken for a late one.
 */
import type Stripe from 'stripe';
import { disputeAfter, disputeDecision } from '#domain/disputes';
import type { Transaction } from '#domain/transactions';
import type { ProcessorNotice } from '#processor/processor';
import { noticeOfEvent } from '#processor/stripe/notices';

const AT = 1_900_000_000;
const MERCHANT = '32350000001';

const intent = {
  id: 'pi_unitcard',
  object: 'payment_intent',
  payment_method_types: ['card'],
  metadata: { processor_key: 'sale:unit-sale' },
} as unknown as Stripe.PaymentIntent;

let events = 0;
const disputeEvent = (type: string, status: string) =>
  ({
    id: `evt_unit${++events}`,
    type,
    created: AT,
    data: {
      object: {
        id: 'dp_unit',
        object: 'dispute',
        payment_intent: intent.id,
        status,
        reason: 'general',
        amount: 3000,
      },
    },
  }) as unknown as Stripe.Event;

const noticeOf = async (event: Stripe.Event) =>
  (await noticeOfEvent(event, MERCHANT, 'acct_unit', async () => intent)) as Extract<
    ProcessorNotice,
    { kind: 'dispute_opened' | 'dispute_updated' | 'dispute_closed' }
  >;

const sale = {
  transactionId: 'unit-sale',
  merchantId: MERCHANT,
  status: 'Approved',
  accountType: 'VISA',
} as unknown as Transaction;

test('a dispute opened, moved on and closed within one second: each notice is past the one before, so none is taken for a late one', async () => {
  const opened = await noticeOf(disputeEvent('charge.dispute.created', 'needs_response'));
  const review = await noticeOf(disputeEvent('charge.dispute.updated', 'under_review'));
  const closed = await noticeOf(disputeEvent('charge.dispute.closed', 'won'));
  const afterOpened = disputeAfter(opened, sale, undefined, 1);
  expect(disputeDecision(review, sale, afterOpened)).toEqual({ outcome: 'apply' });
  const afterReview = disputeAfter(review, sale, afterOpened, 1);
  expect(disputeDecision(closed, sale, afterReview)).toEqual({ outcome: 'apply' });
  // Arriving the other way round, the earlier one is late.
  expect(disputeDecision(opened, sale, disputeAfter(closed, sale, undefined, 2)).outcome).toBe('stale');

  expect(opened.sequence).toBeLessThan(review.sequence);
  expect(review.sequence).toBeLessThan(closed.sequence);
  // Each second's notices still come after every notice of the second before, and after it.
  expect(opened.sequence).toBeGreaterThanOrEqual(AT * 1000);
  expect(closed.sequence).toBeLessThan((AT + 1) * 1000);
});
