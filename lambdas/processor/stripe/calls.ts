/**
 * The adapter's calls to Stripe and what it reads back: each call's failure classified once
 * (errors.ts), the metadata that ties a Stripe object to the service's processor key, and the
 * look-ups that find an object by that key when Stripe no longer remembers the key.
 */
import type Stripe from 'stripe';
import { failureOf, malformed, StripeUnavailableError, type StripeFailure } from './errors';

/** Metadata on every PaymentIntent and Refund the service makes: its key, and whose it is. */
export const KEY_FIELD = 'processor_key';
export const MERCHANT_FIELD = 'merchant_id';
/**
 * Marks the PaymentIntent that takes a key whose sale got no answer (never confirmed, canceled at
 * once): a late arrival of that sale is then refused by Stripe, and the key answers declined.
 */
export const TIMEOUT_REVERSAL_FIELD = 'timeout_reversal';

/**
 * The adapter's own key of the refund that reverses a sale made under `key` which got no answer
 * (its Stripe idempotency key and its KEY_FIELD): one per sale key, apart from the service's keys
 * (domain/processor-keys.ts), so the activity report leaves it out.
 */
export const reversalKeyOf = (key: string): string => `reverse:${key}`;
export const isReversalKey = (key: string): boolean => key.startsWith('reverse:');

type Outcome<T> = { ok: T } | { failed: StripeFailure };

/** Runs a call: its result, or its failure when that is an answer (a StripeUnavailableError is thrown). */
export async function attempt<T>(what: string, call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await call() };
  } catch (error) {
    return { failed: failureOf(error, what) };
  }
}

/** Runs a call whose every failure leaves the outcome open (reads, look-ups). */
export async function must<T>(what: string, call: () => Promise<T>): Promise<T> {
  const outcome = await attempt(what, call);
  if ('ok' in outcome) return outcome.ok;
  const detail =
    outcome.failed.kind === 'refused'
      ? `HTTP ${outcome.failed.status} ${outcome.failed.code}`
      : outcome.failed.kind;
  throw new StripeUnavailableError(`Stripe ${what} refused (${detail})`);
}

/** A Stripe id of the given prefix (`pi_`), or an unreadable answer. */
export function idOf(value: unknown, prefix: string, what: string): string {
  if (typeof value === 'string' && value.startsWith(prefix) && /^[A-Za-z0-9_]{4,255}$/.test(value))
    return value;
  throw malformed(what, `no ${prefix} id`);
}

/** A whole non-negative number Stripe gave (an amount, a time), or an unreadable answer. */
export function countOf(value: unknown, field: string, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw malformed(what, `${field} is not a count`);
}

/** Unix seconds as the service's ISO-8601. */
export const isoOf = (seconds: number): string => new Date(seconds * 1000).toISOString();

const keyOf = (object: { metadata?: Stripe.Metadata | null }): string | undefined =>
  object.metadata?.[KEY_FIELD];

/**
 * The most pages of 100 PaymentIntents one look-up by key lists: every call of a function must do
 * bounded work, and a connected account may make many more PaymentIntents in a day than the payor
 * whose key is looked for. 10 pages keep a look-up within a few seconds of Stripe's answers.
 */
const MAX_LOOKUP_PAGES = 10;

/**
 * The PaymentIntent made under `key`: the payor's (or, without the customer, the account's)
 * PaymentIntents created since `sinceSeconds`, listed (Stripe's lists are consistent, its search
 * is not), matched by metadata; the first made when there are several. More than
 * MAX_LOOKUP_PAGES pages of them leave the answer open (StripeUnavailableError, retried later):
 * the key's charge may be among those not listed, and answering "none" would charge again.
 */
export async function chargeByKey(
  stripe: Stripe,
  scope: { account: string; customer?: string },
  key: string,
  sinceSeconds: number,
): Promise<Stripe.PaymentIntent | undefined> {
  const found: Stripe.PaymentIntent[] = [];
  const listed = await must('charge look-up', async () => {
    let startingAfter: string | undefined;
    for (let pages = 0; pages < MAX_LOOKUP_PAGES; pages++) {
      const page = await stripe.paymentIntents.list(
        {
          created: { gte: sinceSeconds },
          limit: 100,
          expand: ['data.latest_charge'],
          ...(scope.customer !== undefined && { customer: scope.customer }),
          ...(startingAfter !== undefined && { starting_after: startingAfter }),
        },
        { stripeAccount: scope.account },
      );
      for (const intent of page.data) if (keyOf(intent) === key) found.push(intent);
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return true;
      startingAfter = last.id;
    }
    return false;
  });
  if (!listed)
    throw new StripeUnavailableError(
      `Stripe charge look-up: more than ${MAX_LOOKUP_PAGES * 100} PaymentIntents since the key's first use; looked for again later`,
    );
  return found.sort((a, b) => a.created - b.created)[0];
}

/** The Refund of `paymentIntent` made under `key`, if any (a PaymentIntent's refunds are few). */
export async function refundByKey(
  stripe: Stripe,
  account: string,
  paymentIntent: string,
  key: string,
): Promise<Stripe.Refund | undefined> {
  return must('refund look-up', async () => {
    const list = stripe.refunds.list(
      { payment_intent: paymentIntent, limit: 100 },
      { stripeAccount: account },
    );
    for await (const refund of list) if (keyOf(refund) === key) return refund;
    return undefined;
  });
}
