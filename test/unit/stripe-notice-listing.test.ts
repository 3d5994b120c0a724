/**
 * The backstop's listing of Stripe's events (lambdas/processor/stripe/notices.ts listStripeNotices)
 * on a scripted Stripe of two connected accounts: a run cut at its limit resumes after the event it
 * stopped at, in an order that does not change between runs, so that no event of the same second
 * is passed over.
 */
import type Stripe from 'stripe';
import { listStripeNotices, noticeOfEvent } from '#processor/stripe/notices';

const START = 1_900_000_000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A bank debit's `payment_intent.succeeded` (a clearing notice) of `account`, at `created`. */
const cleared = (id: string, created: number) =>
  ({
    id,
    type: 'payment_intent.succeeded',
    created,
    data: {
      object: {
        id: `pi_${id.slice(4)}`,
        object: 'payment_intent',
        payment_method_types: ['us_bank_account'],
        metadata: { processor_key: `sale:${id.slice(4)}` },
      },
    },
  }) as unknown as Stripe.Event;

/** Stripe's events of each account, newest first, as the package iterates a list of them. */
function stripeWith(events: Record<string, Stripe.Event[]>): Stripe {
  return {
    events: {
      list: (params: { created: { gte: number; lte: number } }, options: { stripeAccount: string }) =>
        (async function* () {
          const listed = (events[options.stripeAccount] ?? [])
            .filter((e) => e.created >= params.created.gte && e.created <= params.created.lte)
            .sort((a, b) => b.created - a.created);
          yield* listed;
        })(),
    },
  } as unknown as Stripe;
}

const ACCOUNTS = [
  { merchantId: '32350000001', account: 'acct_x' },
  { merchantId: '32350000002', account: 'acct_y' },
];

test('a listing resumed after the event it stopped at passes over no event of the same second, whatever came since', async () => {
  // One event of each account in the same second; acct_y had a newer one already.
  const events: Record<string, Stripe.Event[]> = {
    acct_x: [cleared('evt_x1', START)],
    acct_y: [cleared('evt_y1', START), cleared('evt_y2', START + 20)],
  };
  const stripe = stripeWith(events);
  const now = iso(START + 60);
  const first = await listStripeNotices(stripe, ACCOUNTS, { cursor: `from:${START}`, limit: 1, now });
  expect(first.more).toBe(true);
  const seen = first.notices.map((n) => n.noticeId);

  // acct_x records a newer event before the next run: each account's own order is unchanged.
  events.acct_x!.push(cleared('evt_x2', START + 30));
  let cursor = first.cursor;
  for (let run = 0; run < 5; run++) {
    const page = await listStripeNotices(stripe, ACCOUNTS, { cursor, limit: 1, now });
    seen.push(...page.notices.map((n) => n.noticeId));
    cursor = page.cursor;
    if (!page.more) break;
  }
  expect([...new Set(seen)].sort()).toEqual(['evt_x1', 'evt_x2', 'evt_y1', 'evt_y2']);
});

test("defect: one signed event whose object lacks payment_method_types threw a TypeError: the webhook answered 500 and the backstop's listing stopped on it for every merchant; it is passed over", async () => {
  const malformed = cleared('evt_x2', START + 1);
  delete (malformed.data.object as { payment_method_types?: string[] }).payment_method_types;
  const stripe = stripeWith({ acct_x: [cleared('evt_x1', START), malformed, cleared('evt_x3', START + 2)] });
  const page = await listStripeNotices(stripe, ACCOUNTS, {
    cursor: `from:${START}`,
    limit: 10,
    now: iso(START + 60),
  });
  expect(page.notices.map((n) => n.noticeId)).toEqual(['evt_x1', 'evt_x3']);
  expect(page.more).toBe(false);
  // The webhook's reading of it alone: no notice, no error.
  const readIntent = async () => undefined;
  await expect(noticeOfEvent(malformed, '32350000001', 'acct_x', readIntent)).resolves.toBeUndefined();
});
