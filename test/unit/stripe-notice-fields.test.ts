/**
 * Stripe's events as notices when a field the adapter reads is missing or null (Stripe is an
 * outside system): a dispute is still recorded, a card update that cannot be told whole is not
 * applied (lambdas/processor/stripe/notices.ts).
 */
import type Stripe from 'stripe';
import type { ProcessorNotice } from '#processor/processor';
import { accountUpdateOf, noticeOfEvent } from '#processor/stripe/notices';

const AT = 1_900_000_000;
const MERCHANT = '32350000001';
const intent = {
  id: 'pi_unitcard',
  object: 'payment_intent',
  amount: 3000,
  amount_received: 3000,
  payment_method_types: ['card'],
  metadata: { processor_key: 'sale:unit-sale' },
} as unknown as Stripe.PaymentIntent;

const event = (type: string, object: Record<string, unknown>, previous?: Record<string, unknown>) =>
  ({
    id: `evt_${type.replace(/\W/g, '_')}`,
    type,
    created: AT,
    data: { object, ...(previous && { previous_attributes: previous }) },
  }) as unknown as Stripe.Event;

test('defect: a dispute Stripe answered without its amount or reason was recorded without them (amountCents undefined): it is recorded, the reason general, the amount the charge’s', async () => {
  const notice = (await noticeOfEvent(
    event('charge.dispute.created', {
      id: 'dp_unit',
      object: 'dispute',
      payment_intent: intent.id,
      status: 'needs_response',
      reason: null,
      amount: null,
    }),
    MERCHANT,
    'acct_unit',
    async () => intent,
  )) as Extract<ProcessorNotice, { kind: 'dispute_opened' }>;
  expect(notice).toMatchObject({ kind: 'dispute_opened', reason: 'general', amountCents: 3000 });
});

describe('defect: a card update whose new last four digits or expiry Stripe answered null was applied as such (************undefined, a null expiry)', () => {
  const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, fingerprint: 'fp_new' };
  const update = (over: Record<string, unknown>, previous?: Record<string, unknown>) =>
    accountUpdateOf(
      event(
        'payment_method.automatically_updated',
        { id: 'pm_unit', object: 'payment_method', customer: 'cus_unit', card: { ...card, ...over } },
        previous,
      ),
    );

  it.each<[string, Record<string, unknown>, Record<string, unknown> | undefined]>([
    ['a new number without its last four digits', { last4: null }, { card: { last4: '0000' } }],
    ['a new expiry without its month', { exp_month: null }, { card: { exp_month: 1 } }],
    ['a new expiry with a month 13', { exp_month: 13 }, { card: { exp_month: 1 } }],
    ['a new number without its year', { exp_year: null }, { card: { fingerprint: 'fp_old' } }],
  ])('%s: not applied', (_name, over, previous) => {
    expect(update(over, previous)).toBeUndefined();
  });

  it('a well-formed one is', () => {
    expect(update({}, { card: { last4: '0000' } })).toMatchObject({
      kind: 'new_number',
      maskedAccountNumber: '************4242',
      expiryMonth: 12,
      expiryYear: 2034,
    });
    expect(update({ exp_year: 2035 }, { card: { exp_year: 2034 } })).toMatchObject({
      kind: 'new_expiry',
      expiryMonth: 12,
      expiryYear: 2035,
    });
  });
});
