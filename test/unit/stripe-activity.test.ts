/**
 * How the Stripe adapter's activity report tells a returned bank debit from a declined one, on
 * Stripe's objects as given (a scripted Stripe: the stand-in fails every bank debit after it was
 * submitted, never when it is made). A debit Stripe submitted (`payment_intent.processing`) and
 * that failed later is the approved sale plus a `return` line with its Nacha code; one that failed
 * when it was made is a declined sale, with no return.
 */
import type Stripe from 'stripe';
import { activityOf } from '#processor/stripe/activity';

const MERCHANT = '32350000001';
const ACCOUNT = 'acct_unit';
const MADE = 1_900_000_000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A bank debit Stripe failed with `insufficient_funds`, made at MADE under `key`. */
const failedDebit = (id: string, key: string, created = MADE) =>
  ({
    id,
    object: 'payment_intent',
    amount: 3100,
    amount_received: 0,
    created,
    status: 'requires_payment_method',
    payment_method_types: ['us_bank_account'],
    metadata: { processor_key: key },
    latest_charge: null,
    last_payment_error: { type: 'invalid_request_error', code: 'insufficient_funds', message: 'Returned.' },
  }) as unknown as Stripe.PaymentIntent;

let events = 0;
const event = (type: string, created: number, object: Stripe.PaymentIntent) =>
  ({ id: `evt_unit${++events}`, type, created, data: { object } }) as unknown as Stripe.Event;

/** Stripe's lists of one account, as the package iterates them. */
function stripeWith(intents: Stripe.PaymentIntent[], listedEvents: Stripe.Event[]): Stripe {
  const list =
    <T>(items: T[]) =>
    () =>
      (async function* () {
        yield* items;
      })();
  return {
    paymentIntents: { list: list(intents) },
    refunds: { list: list([]) },
    events: { list: list(listedEvents) },
  } as unknown as Stripe;
}

const report = (stripe: Stripe, since = MADE - 60) =>
  activityOf(
    stripe,
    [{ merchantId: MERCHANT, account: ACCOUNT }],
    iso(since),
    iso(MADE + 3 * 86_400),
    iso(MADE + 3 * 86_400),
  );
const said = (lines: Awaited<ReturnType<typeof report>>) =>
  lines.map((a) => [a.kind, a.idempotencyKey, a.approved, a.amountCents, a.responseCode, a.at]);

test('a bank debit submitted and failed later: the approved sale when made, its return (R01) when it failed', async () => {
  const debit = failedDebit('pi_returned', 'payment:returned');
  const failedAt = MADE + 2 * 86_400;
  const lines = await report(
    stripeWith(
      [debit],
      [
        event('payment_intent.payment_failed', failedAt, debit),
        event('payment_intent.processing', MADE, debit),
      ],
    ),
  );
  expect(said(lines)).toEqual([
    ['sale', 'payment:returned', true, 3100, '00', iso(MADE)],
    ['return', 'payment:returned', true, 3100, 'R01', iso(failedAt)],
  ]);
});

test('a bank debit that failed when it was made (never processing): a declined sale, no return', async () => {
  const debit = failedDebit('pi_declined', 'payment:declined');
  const lines = await report(stripeWith([debit], [event('payment_intent.payment_failed', MADE, debit)]));
  expect(said(lines)).toEqual([['sale', 'payment:declined', false, 0, '05', iso(MADE)]]);
});

test('a debit made before the window and failing in it had been submitted: its return is listed', async () => {
  const debit = failedDebit('pi_older', 'payment:older', MADE - 2 * 86_400);
  const lines = await report(stripeWith([], [event('payment_intent.payment_failed', MADE, debit)]));
  expect(said(lines)).toEqual([['return', 'payment:older', true, 3100, 'R01', iso(MADE)]]);
});
