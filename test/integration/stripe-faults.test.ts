/**
 * Stripe misbehaving, on the stand-in's faults: whatever it answers ends as the processor being
 * unavailable (ProcessorUnavailableError: the service retries with the same key, or reverses) or
 * as a definite answer, never as another error; and a charge whose answer was spoiled is found by
 * its key when asked again, so no sale is left without its record.
 */
import type Stripe from 'stripe';
import type { SaleRequest } from '#processor/processor';
import { ProcessorUnavailableError } from '#processor/processor';
import { StripeUnavailableError } from '#processor/stripe/errors';
import type { StandInFault } from '#lib/local/stripe/faults';
import { ACCOUNT, cardOf, MERCHANT, stripeOnStandIn, type StripeOnStandIn } from '#support/stripe-stand-in';

let env: StripeOnStandIn;
beforeAll(async () => {
  // A short call timeout, so that a body stopping half-way ends the call within the test.
  env = await stripeOnStandIn({ timeoutMs: 800 });
});
afterAll(() => env.close());
afterEach(() => env.standIn.faults.clear());

let keys = 0;
async function aSale(amountCents = 2500): Promise<SaleRequest> {
  const { token } = await env.processor.tokenize(cardOf('4242424242424242'));
  return {
    idempotencyKey: `sale:faults-${++keys}`,
    keyFirstUsedAt: new Date().toISOString(),
    merchantId: MERCHANT,
    token,
    amountCents,
    allowPartial: false,
  };
}
const intentsWith = (key: string): Stripe.PaymentIntent[] =>
  [...env.standIn.state.account(ACCOUNT).intents.values()].filter((i) => i.metadata.processor_key === key);
const onCreate = { method: 'POST', path: '/v1/payment_intents' };

describe('the processor unavailable: nothing charged, the same key asked again later', () => {
  it.each<[string, StandInFault]>([
    ['429', { before: 'rate-limit' }],
    ['429 with Stripe-Should-Retry: true', { before: 'rate-limit', shouldRetry: true }],
    ['429 with Stripe-Should-Retry: false', { before: 'rate-limit', shouldRetry: false }],
    ['500', { before: 'server-error' }],
    ['503 with Stripe-Should-Retry: true', { before: 'server-error', status: 503, shouldRetry: true }],
    ['502', { before: 'server-error', status: 502 }],
    [
      '401 (a wrong key)',
      {
        before: 'error',
        status: 401,
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided' },
      },
    ],
    [
      '409 (the key in use by a request still running)',
      {
        before: 'error',
        status: 409,
        error: { type: 'invalid_request_error', code: 'idempotency_key_in_use', message: 'in use' },
      },
    ],
  ])('%s: ProcessorUnavailableError, then the retry charges once', async (_name, fault) => {
    const request = await aSale();
    env.standIn.faults.add(fault, onCreate);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(0);
    expect(await env.processor.sale(request)).toMatchObject({ approved: true });
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
  });

  it('a 429 or 5xx is never a decline', async () => {
    for (const fault of [
      { before: 'rate-limit' },
      { before: 'server-error', status: 503 },
    ] as StandInFault[]) {
      env.standIn.faults.add(fault, onCreate);
      const outcome = await env.processor.sale(await aSale()).catch((e: unknown) => e);
      expect(outcome).toBeInstanceOf(StripeUnavailableError);
      expect((outcome as StripeUnavailableError).retryable).toBe(true);
    }
  });
});

describe('a 5xx Stripe keeps under the key (Stripe-Should-Retry: false): found by the key instead of retried', () => {
  it('nothing was made under the key: a definite decline (96, category 2), not an endless retry', async () => {
    const request = await aSale();
    env.standIn.faults.add({ before: 'server-error', shouldRetry: false, kept: true }, onCreate);
    expect(await env.processor.sale(request)).toMatchObject({ approved: false, responseCode: '96' });
    // The key replays its 500 at Stripe; the adapter answers the same again, and charges nothing.
    expect(await env.processor.sale(request)).toMatchObject({ approved: false, responseCode: '96' });
    expect(intentsWith(request.idempotencyKey)).toHaveLength(0);
  });
});

describe('an answer spoiled after Stripe charged: unavailable now, the charge found by its key next time', () => {
  it.each<[string, StandInFault]>([
    ['a body that stops half-way (timeout)', { after: 'hang-mid-body' }],
    ['an answer that is not JSON', { after: 'malformed-json' }],
    [
      'a status this adapter does not know (an unknown enum value)',
      { after: 'altered', set: { status: 'requires_reauthorization' } },
    ],
    ['a PaymentIntent without its amount', { after: 'altered', unset: ['amount_received', 'amount'] }],
    ['a PaymentIntent without its id', { after: 'altered', unset: ['id'] }],
    [
      'a PaymentIntent of another key',
      { after: 'altered', set: { metadata: { processor_key: 'sale:someone-else' } } },
    ],
  ])('%s', async (_name, fault) => {
    const request = await aSale(3300);
    env.standIn.faults.add(fault, onCreate);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    // Stripe did charge: the retry with the same key gets that charge, and no second.
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
    const again = await env.processor.sale(request);
    expect(again).toMatchObject({ approved: true, approvedCents: 3300 });
    expect(again.processorTransactionId).toBe(intentsWith(request.idempotencyKey)[0]!.id);
  });

  it('a decline with a decline code nobody knows is category 1, the code kept', async () => {
    const { token } = await env.processor.tokenize(cardOf('4000000000000002'));
    env.standIn.faults.add(
      {
        before: 'error',
        status: 402,
        error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'brand_new_reason',
          message: 'Your card was declined.',
        },
      },
      onCreate,
    );
    const result = await env.processor.sale({
      idempotencyKey: `sale:faults-${++keys}`,
      keyFirstUsedAt: new Date().toISOString(),
      merchantId: MERCHANT,
      token,
      amountCents: 1000,
      allowPartial: false,
    });
    expect(result).toMatchObject({
      approved: false,
      responseCode: '05',
      responseMessage: 'Declined (Stripe brand_new_reason)',
    });
  });
});

describe('refunds on a misbehaving Stripe', () => {
  it('a refund whose answer stopped half-way is found by its key, and made once', async () => {
    const sale = await env.processor.sale(await aSale(5000));
    const refund = {
      idempotencyKey: `refund:faults-${++keys}`,
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId,
      amountCents: 1500,
    };
    env.standIn.faults.add({ after: 'hang-mid-body' }, { method: 'POST', path: '/v1/refunds' });
    await expect(env.processor.refund(refund)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(await env.processor.refund(refund)).toMatchObject({ approved: true });
    const made = [...env.standIn.state.account(ACCOUNT).refunds.values()].filter(
      (r) => r.payment_intent === sale.processorTransactionId,
    );
    expect(made).toHaveLength(1);
  });

  it('a refund Stripe answers 500 and keeps (Stripe-Should-Retry: false) is refused, nothing refunded', async () => {
    const sale = await env.processor.sale(await aSale(5000));
    env.standIn.faults.add(
      { before: 'server-error', shouldRetry: false, kept: true },
      { method: 'POST', path: '/v1/refunds' },
    );
    const answer = await env.processor.refund({
      idempotencyKey: `refund:faults-${++keys}`,
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId,
      amountCents: 1000,
    });
    expect(answer).toMatchObject({ approved: false });
    expect(
      [...env.standIn.state.account(ACCOUNT).refunds.values()].filter(
        (r) => r.payment_intent === sale.processorTransactionId,
      ),
    ).toHaveLength(0);
  });
});
