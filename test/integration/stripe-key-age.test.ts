/**
 * One key, one charge, whatever its age. Stripe forgets an idempotency key 24 hours after its
 * first use; the service replays keys later than that (the sweeper, reconciliation, a retried
 * batch). These tests move the service's clock (which the stand-in's follows:
 * test/support/stripe-stand-in.ts) 25 hours on and replay: the adapter finds the first charge by
 * its metadata instead of charging again. Once through the service itself (core/sale.ts on
 * DynamoDB Local: the sale's Pending record keeps when its key was first used), the others at
 * the adapter. Each checks that Stripe has forgotten the key by then: without the look-up the
 * replay would have charged again.
 * Also the timeout reversal: a sale with no answer moves no money, whether it reached Stripe or not.
 */
import type Stripe from 'stripe';
import type { SaleRequest } from '#processor/processor';
import { ProcessorUnavailableError } from '#processor/processor';
import {
  ACCOUNT,
  cardOf,
  MERCHANT,
  OTHER_ACCOUNT,
  OTHER_MERCHANT,
  STAND_IN_KEY,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';
import { clockAt, useTestClock } from '#support/clock';
import { fixedAccounts } from '#processor/stripe/accounts';
import { stripeClient } from '#processor/stripe/client';
import { StripeProcessor } from '#processor/stripe/stripe-processor';
import { withProcessorTimeout } from '#processor/timeout';
import { giveUpSale, runSale } from '#core/sale';
import { sweep } from '#core/sweeper';
import { useProcessor } from '#processor/index';
import { useClock } from '#shared/clock';
import { reloadConfigForTests } from '#shared/config';
import { DynamoPayorStore } from '#store/payors';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

let env: StripeOnStandIn;
beforeAll(async () => {
  env = await stripeOnStandIn();
});
afterAll(() => env.close());
afterEach(() => {
  jest.useRealTimers();
  env.standIn.faults.clear();
});

const HOUR = 3600_000;
let keys = 0;
async function aSale(number = '4242424242424242', amountCents = 2500): Promise<SaleRequest> {
  const { token } = await env.processor.tokenize(cardOf(number));
  return {
    idempotencyKey: `payment:key-age-${++keys}`,
    keyFirstUsedAt: new Date().toISOString(),
    merchantId: MERCHANT,
    token,
    amountCents,
    allowPartial: false,
  };
}
const intentsWith = (key: string): Stripe.PaymentIntent[] =>
  [...env.standIn.state.account(ACCOUNT).intents.values()].filter((i) => i.metadata.processor_key === key);
const moneyMovedBy = (key: string): number =>
  intentsWith(key)
    .filter((i) => i.status === 'succeeded' || i.status === 'processing')
    .reduce((sum, i) => {
      const charge = env.standIn.state.account(ACCOUNT).charges.get(i.latest_charge as string)!;
      return sum + charge.amount - charge.amount_refunded;
    }, 0);

/** The same request straight to the stand-in, as Stripe would get it: whether it still knows the key. */
async function stripeStillKnows(request: SaleRequest): Promise<boolean> {
  const before = intentsWith(request.idempotencyKey).length;
  const { default: StripeClient } = await import('stripe');
  const direct = new StripeClient(STAND_IN_KEY, {
    host: env.standIn.host,
    port: env.standIn.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  });
  const [customer, paymentMethod] = request.token.split('/');
  await direct.paymentIntents.create(
    {
      amount: request.amountCents,
      currency: 'usd',
      customer: customer!,
      payment_method: paymentMethod!,
      confirm: true,
      off_session: true,
      allowed_payment_method_types: ['card'],
      metadata: { processor_key: request.idempotencyKey, merchant_id: MERCHANT },
      expand: ['latest_charge'],
    },
    { stripeAccount: ACCOUNT, idempotencyKey: request.idempotencyKey },
  );
  return intentsWith(request.idempotencyKey).length === before;
}

describe('through the service: a sale whose answer was lost, resumed 25 hours later', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await createTestTable();
    process.env.TABLE_NAME = table.tableName;
    reloadConfigForTests();
    useProcessor(env.processor);
  });
  afterAll(async () => {
    useProcessor(undefined);
    useClock(undefined);
    await table.drop();
  });

  it('creates no second PaymentIntent: the resumed sale is answered by the first', async () => {
    // The service's clock, which the stand-in's follows.
    const clock = useTestClock(Date.now());
    // A payor whose card is vaulted at Stripe, stored as the API stores it.
    const vaulted = await env.processor.tokenize(cardOf('4242424242424242'));
    const { payor, method } = makePayor(MERCHANT);
    const stored = { ...method, processorToken: vaulted.token, maskedAccountNumber: '************4242' };
    await new DynamoPayorStore(table.db, table.tableName).create(payor, stored);
    const request = saleRequest(MERCHANT, `${payor.payorId}/${stored.savedPaymentMethodId}`, 3900, {
      onNoAnswer: 'throw',
    });

    // Stripe charges, the answer is lost (twice: the stripe package retries a dropped connection
    // once): the sale stays Pending, its key first used now.
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(runSale(request, clock.now())).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(intentsWith(request.processorKey)).toHaveLength(1);

    clock.advance(25 * HOUR);
    const resumed = await runSale(request, clock.now());
    expect(resumed).toMatchObject({ status: 'Approved' });
    const intents = intentsWith(request.processorKey);
    expect(intents.map((i) => i.id)).toEqual([resumed.processorTransactionId]);
    expect(moneyMovedBy(request.processorKey)).toBe(3900);
    // Stripe has forgotten the key: the same request without the look-up would charge again.
    expect(
      await stripeStillKnows({
        idempotencyKey: request.processorKey,
        keyFirstUsedAt: clock.now().toISOString(),
        merchantId: MERCHANT,
        token: vaulted.token,
        amountCents: 3900,
        allowPartial: false,
      }),
    ).toBe(false);
  });
  it("defect: the sweeper's timeout reversal of a charge whose answer was lost, on an account busier than a look-up lists, never refunded it (no method token: the whole account was listed, past its bound): it looks among the payor's own and refunds it", async () => {
    const clock = useTestClock(Date.now());
    const vaulted = await env.processor.tokenize(cardOf('4242424242424242'));
    const { payor, method } = makePayor(MERCHANT);
    const stored = { ...method, processorToken: vaulted.token, maskedAccountNumber: '************4242' };
    await new DynamoPayorStore(table.db, table.tableName).create(payor, stored);
    const request = saleRequest(MERCHANT, `${payor.payorId}/${stored.savedPaymentMethodId}`, 2700, {
      onNoAnswer: 'throw',
    });
    // Stripe charges, the answer is lost: the sale stays Pending.
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(runSale(request, clock.now())).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(moneyMovedBy(request.processorKey)).toBe(2700);

    // The account is busy with a slot's other charges (more than a look-up lists), then the sale
    // is given up on (Declined 96), its reversal left to the sweeper.
    const busy = [...Array(1_200).keys()].map((i) => `pi_slot${String(i).padStart(6, '0')}`);
    const intents = env.standIn.state.account(ACCOUNT).intents;
    for (const id of busy)
      intents.set(id, {
        id,
        object: 'payment_intent',
        created: Math.floor(clock.now().getTime() / 1000),
        amount: 1000,
        currency: 'usd',
        customer: null,
        status: 'canceled',
        latest_charge: null,
        metadata: { processor_key: `payment:${id}`, merchant_id: MERCHANT },
      } as unknown as Stripe.PaymentIntent);
    try {
      const { transaction } = await giveUpSale(request, 'no answer', clock.now(), { reverse: 'later' });
      expect(transaction).toMatchObject({ status: 'Declined', responseCode: '96' });
      const report = await sweep(new Date(clock.now().getTime() + 60_000), { olderThanSeconds: 15 });
      expect(report.reversed.map((r) => r.transactionId)).toContain(request.transactionId);
      expect(moneyMovedBy(request.processorKey)).toBe(0);
      expect((await transactionStore().find(request.transactionId))!.transaction).not.toHaveProperty(
        'reversalDue',
      );
    } finally {
      for (const id of busy) intents.delete(id);
    }
  });
});

describe('a key replayed more than a day after its first use', () => {
  it('an approved sale replayed 25 hours later creates nothing: the first charge is the answer', async () => {
    const first = Date.now();
    const request = await aSale();
    const answer = await env.processor.sale(request);
    expect(answer).toMatchObject({ approved: true });

    clockAt(first + 25 * HOUR);
    expect(await env.processor.sale(request)).toEqual(answer);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
    expect(moneyMovedBy(request.idempotencyKey)).toBe(2500);
    // Stripe itself has forgotten the key by now: without the look-up the replay would charge again.
    expect(await stripeStillKnows(request)).toBe(false);
  });

  it('a declined sale replayed 25 hours later is the same decline, and no new attempt at the card', async () => {
    const first = Date.now();
    const request = await aSale('4000000000009995');
    const answer = await env.processor.sale(request);
    expect(answer).toMatchObject({ approved: false, responseCode: '51' });

    clockAt(first + 25 * HOUR);
    expect(await env.processor.sale(request)).toEqual(answer);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
  });

  it('a key never sent before, first used 25 hours ago (a sale whose call never left), charges once', async () => {
    const request = await aSale();
    clockAt(Date.now() + 25 * HOUR);
    const answer = await env.processor.sale(request);
    expect(answer).toMatchObject({ approved: true });
    expect(await env.processor.sale(request)).toEqual(answer);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
  });

  it('a refund replayed 25 hours later is the first refund', async () => {
    const sale = await env.processor.sale(await aSale());
    const refund = {
      idempotencyKey: `refund:key-age-${++keys}`,
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId,
      amountCents: 700,
    };
    const answer = await env.processor.refund(refund);
    clockAt(Date.now() + 25 * HOUR);
    expect(await env.processor.refund(refund)).toEqual(answer);
    const refunds = [...env.standIn.state.account(ACCOUNT).refunds.values()].filter(
      (r) => r.payment_intent === sale.processorTransactionId,
    );
    expect(refunds).toHaveLength(1);
  });
});

describe('answering an unanswered sale as declined (reverseUnanswered)', () => {
  it('a sale that never reached Stripe: nothing moves, and its late arrival is refused and answers declined', async () => {
    const request = await aSale();
    env.standIn.faults.add(
      { before: 'server-error', status: 503 },
      { method: 'POST', path: '/v1/payment_intents' },
    );
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(0);

    await env.processor.reverseUnanswered(request);
    // The key is taken by a PaymentIntent never confirmed, canceled: no money.
    expect(intentsWith(request.idempotencyKey).map((i) => i.status)).toEqual(['canceled']);
    // The sale arriving late (or sent again) is refused by Stripe: the key answers declined.
    expect(await env.processor.sale(request)).toMatchObject({ approved: false, responseCode: '96' });
    expect(moneyMovedBy(request.idempotencyKey)).toBe(0);
    // Done twice, the reversal is the same.
    await env.processor.reverseUnanswered(request);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
  });

  it('a sale Stripe made whose answer was lost: it is refunded in full, once', async () => {
    const request = await aSale('4242424242424242', 4200);
    // Lost twice: the stripe package retries a dropped connection once by itself, under the same key.
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    expect(moneyMovedBy(request.idempotencyKey)).toBe(4200);

    await env.processor.reverseUnanswered(request);
    await env.processor.reverseUnanswered(request);
    expect(moneyMovedBy(request.idempotencyKey)).toBe(0);
    const refunds = [...env.standIn.state.account(ACCOUNT).refunds.values()].filter(
      (r) => r.payment_intent === intentsWith(request.idempotencyKey)[0]!.id,
    );
    expect(refunds).toHaveLength(1);
  });

  it('the sweeper’s reversal 25 hours later still finds the charge by its key (without the method’s token)', async () => {
    const request = await aSale('4242424242424242', 3100);
    // Lost twice: the stripe package retries a dropped connection once by itself, under the same key.
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);

    clockAt(Date.now() + 25 * HOUR);
    await env.processor.reverseUnanswered({
      idempotencyKey: request.idempotencyKey,
      merchantId: MERCHANT,
      keyFirstUsedAt: request.keyFirstUsedAt,
    });
    expect(moneyMovedBy(request.idempotencyKey)).toBe(0);
    expect(intentsWith(request.idempotencyKey)).toHaveLength(1);
  });

  it('a declined sale whose answer was lost: nothing to reverse', async () => {
    const request = await aSale('4000000000000002');
    // Lost twice: the stripe package retries a dropped connection once by itself, under the same key.
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    await env.processor.reverseUnanswered(request);
    expect(intentsWith(request.idempotencyKey).map((i) => i.status)).toEqual(['requires_payment_method']);
    expect(
      [...env.standIn.state.account(ACCOUNT).refunds.values()].some(
        (r) => r.payment_intent === intentsWith(request.idempotencyKey)[0]!.id,
      ),
    ).toBe(false);
  });
});

describe('the look-up of a day-old key is bounded', () => {
  /** A connected account busier than one look-up may list: PaymentIntents of other payors, made now. */
  function busyAccount(count: number): void {
    const intents = env.standIn.state.account(OTHER_ACCOUNT).intents;
    const created = Math.floor(Date.now() / 1000);
    for (let i = 0; i < count; i++) {
      const id = `pi_busy${String(i).padStart(6, '0')}`;
      intents.set(id, {
        id,
        object: 'payment_intent',
        created,
        amount: 1000,
        currency: 'usd',
        customer: null,
        status: 'canceled',
        latest_charge: null,
        metadata: { processor_key: `payment:busy-${i}`, merchant_id: OTHER_MERCHANT },
      } as unknown as Stripe.PaymentIntent);
    }
  }
  const listings = () =>
    env.standIn.requests.filter(
      (r) => r.method === 'GET' && r.path === '/v1/payment_intents' && r.account === OTHER_ACCOUNT,
    ).length;

  it('a key first used 25 hours ago on an account with more PaymentIntents since than a look-up lists: unavailable, nothing charged, a bounded number of pages', async () => {
    const { token } = await env.processor.tokenize({
      ...cardOf('4242424242424242'),
      merchantId: OTHER_MERCHANT,
    });
    const request: SaleRequest = {
      idempotencyKey: `payment:key-age-${++keys}`,
      keyFirstUsedAt: new Date().toISOString(),
      merchantId: OTHER_MERCHANT,
      token,
      amountCents: 2500,
      allowPartial: false,
    };
    clockAt(Date.now() + 25 * HOUR);
    busyAccount(2_500);
    const before = listings();
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    // The payor's PaymentIntents (one page), then at most the account's bound of pages.
    expect(listings() - before).toBeLessThanOrEqual(11);
    // Never charged: the key's first charge may be among those not listed.
    expect(
      [...env.standIn.state.account(OTHER_ACCOUNT).intents.values()].filter(
        (i) => i.metadata.processor_key === request.idempotencyKey,
      ),
    ).toEqual([]);
  });
});

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The same adapter on a Stripe whose PaymentIntent listings are slow (a busy account, a slow API). */
function slowListingProcessor(delayMs: number): StripeProcessor {
  const stripe = stripeClient({
    secretKey: STAND_IN_KEY,
    api: { host: env.standIn.host, port: env.standIn.port, protocol: env.standIn.protocol },
  });
  const intents = stripe.paymentIntents;
  const slowIntents = new Proxy(intents, {
    get(target, prop, receiver) {
      if (prop === 'list')
        return async (...args: Parameters<typeof intents.list>) => {
          await sleep(delayMs);
          return target.list(...args);
        };
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const slow = new Proxy(stripe, {
    get(target, prop, receiver) {
      if (prop === 'paymentIntents') return slowIntents;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return new StripeProcessor({
    stripe: slow,
    accounts: fixedAccounts({ [MERCHANT]: ACCOUNT, [OTHER_MERCHANT]: OTHER_ACCOUNT }),
    schedule: { periodSeconds: 3600, offsetSeconds: 1800 },
  });
}

it('defect: a sale given up on by the adapter bound while it looked a day-old key up went on to charge after its timeout reversal ran (a charge without a record): it charges nothing once given up', async () => {
  const { token } = await env.processor.tokenize(cardOf('4242424242424242'));
  const request: SaleRequest = {
    idempotencyKey: 'payment:audit-late-charge-1',
    // A Pending sale resumed a day after its key was first used (its first call never left).
    keyFirstUsedAt: new Date(Date.now() - 25 * HOUR).toISOString(),
    merchantId: MERCHANT,
    token,
    amountCents: 2500,
    allowPartial: false,
  };
  // As processor/index.ts wraps every adapter: the call bounded (here 300 ms; Stripe's is 20 s).
  // The adapter's own sale is watched: how it ends once its caller gave up on it.
  const adapter = slowListingProcessor(400);
  const sale = adapter.sale.bind(adapter);
  let ended: Promise<string> | undefined;
  jest.spyOn(adapter, 'sale').mockImplementation((r) => {
    const made = sale(r);
    ended = made.then(
      () => 'charged',
      () => 'gave up',
    );
    return made;
  });
  const bounded = withProcessorTimeout(adapter, 300);
  await expect(bounded.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);

  // The caller's answer to no answer (core/sale.ts giveUpSale, then the sweeper): Declined 96 and
  // the key reversed. For a key this old the reversal only looks: nothing is there yet.
  await env.processor.reverseUnanswered({
    idempotencyKey: request.idempotencyKey,
    merchantId: MERCHANT,
    keyFirstUsedAt: request.keyFirstUsedAt,
  });
  expect(moneyMovedBy(request.idempotencyKey)).toBe(0);

  // The abandoned sale finishes its look-up, and gives up rather than charge: a sale recorded
  // Declined 96 and reversed has moved no money.
  expect(await ended).toBe('gave up');
  expect(moneyMovedBy(request.idempotencyKey)).toBe(0);
});
