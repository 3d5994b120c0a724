/**
 * What the Stripe adapter makes of each kind of bad answer, without a network: the official
 * `stripe` package over a scripted fetch. 429s, 5xx, a timeout in the middle of a body, an answer
 * that is not JSON, an unknown enum value or a missing field are the processor being unavailable
 * (never a decline); a 5xx that Stripe keeps under the key (`Stripe-Should-Retry: false`) is
 * resolved by looking the charge up; an unknown decline code is a category-1 decline.
 */
import Stripe from 'stripe';
import { ProcessorUnavailableError, type SaleRequest } from '#processor/processor';
import { fixedAccounts } from '#processor/stripe/accounts';
import { StripeUnavailableError } from '#processor/stripe/errors';
import { StripeProcessor } from '#processor/stripe/stripe-processor';

type Answer = { status: number; body: string | ReadableStream<Uint8Array>; headers?: Record<string, string> };
type Responder = (method: string, path: string, signal: AbortSignal | undefined) => Answer;

const KEY = 'payment:unit-1';
const TOKEN = 'cus_unit/pm_unit';

/** A PaymentIntent as Stripe answers an approved sale under KEY. */
const intent = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'pi_unit',
    object: 'payment_intent',
    amount: 2500,
    amount_received: 2500,
    created: 1_900_000_000,
    status: 'succeeded',
    metadata: { processor_key: KEY, merchant_id: '32350000001' },
    latest_charge: null,
    ...extra,
  });
const emptyList = JSON.stringify({ object: 'list', data: [], has_more: false, url: '/v1/payment_intents' });
const stripeError = (type: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ error: { type, message: 'Stripe wrote this', ...extra } });

/** The adapter on a scripted Stripe: each request is answered by the next responder. */
function adapterOn(...script: Responder[]) {
  const calls: string[] = [];
  const fakeFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const { pathname } = new URL(String(url));
    const method = init?.method ?? 'GET';
    calls.push(`${method} ${pathname}`);
    const next = script.shift();
    if (!next) throw new Error(`unscripted request ${method} ${pathname}`);
    const answer = next(method, pathname, init?.signal ?? undefined);
    return new Response(answer.body, {
      status: answer.status,
      headers: { 'content-type': 'application/json', 'request-id': 'req_unit', ...answer.headers },
    });
  };
  const stripe = new Stripe('sk_test_unit', {
    httpClient: Stripe.createFetchHttpClient(fakeFetch as typeof fetch),
    maxNetworkRetries: 0,
    timeout: 300,
  });
  const processor = new StripeProcessor({
    stripe,
    accounts: fixedAccounts({ '32350000001': 'acct_unit' }),
    schedule: { periodSeconds: 3600, offsetSeconds: 1800 },
  });
  return { processor, calls };
}

const sale: SaleRequest = {
  idempotencyKey: KEY,
  keyFirstUsedAt: new Date().toISOString(),
  merchantId: '32350000001',
  token: TOKEN,
  amountCents: 2500,
  allowPartial: false,
};
const answer =
  (status: number, body: string, headers?: Record<string, string>): Responder =>
  () => ({
    status,
    body,
    ...(headers && { headers }),
  });

/** A body that stops half-way and never ends (until the client gives up and aborts). */
const stalled: Responder = (_m, _p, signal) => ({
  status: 200,
  body: new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(intent().slice(0, 40)));
      signal?.addEventListener('abort', () => controller.error(signal.reason));
    },
  }),
});

async function failure(promise: Promise<unknown>): Promise<StripeUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessorUnavailableError);
  return error as StripeUnavailableError;
}

describe('the processor unavailable, never a decline', () => {
  it.each<[string, Responder]>([
    ['a 429', answer(429, stripeError('invalid_request_error', { code: 'rate_limit' }))],
    [
      'a 429 with Stripe-Should-Retry: true',
      answer(429, stripeError('invalid_request_error'), { 'stripe-should-retry': 'true' }),
    ],
    // A 429 is never kept under the key: asking again is right whatever the header says.
    [
      'a 429 with Stripe-Should-Retry: false',
      answer(429, stripeError('invalid_request_error'), { 'stripe-should-retry': 'false' }),
    ],
    ['a 500', answer(500, stripeError('api_error'))],
    [
      'a 503 with Stripe-Should-Retry: true',
      answer(503, stripeError('api_error'), { 'stripe-should-retry': 'true' }),
    ],
    ['a 502 from a proxy, not JSON', answer(502, '<html>Bad gateway</html>')],
    ['a timeout in the middle of the body', stalled],
    ['an answer that is not JSON', answer(200, '{"id": "pi_unit", "status": ')],
    ['an unknown status (enum value)', answer(200, intent({ status: 'requires_reauthorization' }))],
    [
      'a PaymentIntent without its amount',
      answer(200, intent({ amount_received: undefined, amount: undefined })),
    ],
    ['a PaymentIntent without its id', answer(200, intent({ id: undefined }))],
    ['a 401 (the key refused)', answer(401, stripeError('invalid_request_error'))],
    [
      'a 403 (no access to the account)',
      answer(403, stripeError('invalid_request_error', { code: 'account_invalid' })),
    ],
  ])('%s: ProcessorUnavailableError, to be retried with the same key', async (_name, responder) => {
    const { processor, calls } = adapterOn(responder);
    const error = await failure(processor.sale(sale));
    expect(error.retryable).toBe(true);
    expect(calls).toEqual(['POST /v1/payment_intents']);
  });

  it('a failure of the network itself (connection refused)', async () => {
    const { processor } = adapterOn(() => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    });
    await failure(processor.sale(sale));
  });
});

describe('a 5xx kept under the key (Stripe-Should-Retry: false)', () => {
  it('is not retried: the charge is looked up by its key; none made is a definite decline 96', async () => {
    const { processor, calls } = adapterOn(
      answer(500, stripeError('api_error'), { 'stripe-should-retry': 'false' }),
      answer(200, emptyList),
    );
    expect(await processor.sale(sale)).toMatchObject({ approved: false, responseCode: '96' });
    expect(calls).toEqual(['POST /v1/payment_intents', 'GET /v1/payment_intents']);
  });

  it('the charge the key made is the answer', async () => {
    const list = JSON.stringify({
      object: 'list',
      data: [JSON.parse(intent())],
      has_more: false,
      url: '/v1/payment_intents',
    });
    const { processor } = adapterOn(
      answer(500, stripeError('api_error'), { 'stripe-should-retry': 'false' }),
      answer(200, list),
    );
    expect(await processor.sale(sale)).toMatchObject({
      approved: true,
      processorTransactionId: 'pi_unit',
      approvedCents: 2500,
    });
  });

  it('a 500 with Stripe-Should-Retry: false on the look-up itself leaves the outcome open', async () => {
    const { processor } = adapterOn(
      answer(500, stripeError('api_error'), { 'stripe-should-retry': 'false' }),
      answer(500, stripeError('api_error')),
    );
    await failure(processor.sale(sale));
  });
});

describe('declines', () => {
  it('a card error with a decline code this service does not know: category 1 (05), the code kept', async () => {
    const { processor } = adapterOn(
      answer(
        402,
        stripeError('card_error', {
          code: 'card_declined',
          decline_code: 'some_new_reason',
          network_decline_code: '82',
        }),
      ),
    );
    expect(await processor.sale(sale)).toEqual({
      approved: false,
      processorTransactionId: '',
      responseCode: '05',
      responseMessage: 'Declined (Stripe some_new_reason, network 82)',
      approvedCents: 0,
      processedAt: expect.any(String),
    });
  });

  it('a card error with the network’s advice: Mastercard’s merchant advice code passed on', async () => {
    const { processor } = adapterOn(
      answer(
        402,
        stripeError('card_error', {
          code: 'card_declined',
          decline_code: 'insufficient_funds',
          network_advice_code: '03',
        }),
      ),
    );
    expect(await processor.sale(sale)).toMatchObject({ responseCode: '51', merchantAdviceCode: '03' });
  });

  it('a request Stripe refuses (400) for the charge: a category-1 decline with the code, nothing charged', async () => {
    const { processor } = adapterOn(
      answer(400, stripeError('invalid_request_error', { code: 'amount_too_small' })),
    );
    expect(await processor.sale(sale)).toMatchObject({ approved: false, responseCode: '13' });
  });
});

describe('a card PaymentMethod whose last4 or expiry Stripe answers null', () => {
  it('is vaulted without them (and the service then refuses the method as processor unavailable: method-tokenize)', async () => {
    const card = { brand: 'visa', last4: null, exp_month: null, exp_year: 2032, fingerprint: 'fp_unit' };
    const method = JSON.stringify({ id: 'pm_unit', object: 'payment_method', type: 'card', card });
    const { processor } = adapterOn(
      answer(
        200,
        JSON.stringify({ object: 'search_result', data: [], has_more: false, url: '/v1/customers/search' }),
      ),
      answer(200, JSON.stringify({ id: 'cus_unit', object: 'customer', metadata: {} })),
      answer(200, method),
      answer(200, method),
    );
    const vaulted = await processor.tokenize({
      merchantId: '32350000001',
      payorId: 'payor-9',
      kind: 'card',
      processorToken: 'pm_unit',
    });
    expect(vaulted).toEqual({
      token: expect.any(String),
      fingerprint: 'fp_unit',
      expiryYear: 2032,
      brand: 'VISA',
    });
  });
});
