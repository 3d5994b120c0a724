/**
 * The backstop's listing of Stripe's events (lambdas/processor/stripe/notices.ts listStripeNotices)
 * on a scripted Stripe of two connected accounts: a run cut at its limit resumes after the event it
 * stopped at, in an order that does not change between runs, so that no event of the same second
 * is passed over.
 */
import Stripe from 'stripe';
import { useClock } from '#shared/clock';
import { logger } from '#shared/logger';
import { listStripeNotices } from '#processor/stripe/notice-listing';
import { noticeOfEvent } from '#processor/stripe/notices';

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

/**
 * Stripe's events of each account, newest first, as the package iterates a list of them; an event
 * of `recordedAt` is listed only once the wall clock (`wall.now`, seconds) has reached it. `calls`
 * counts the listings.
 */
function stripeWith(
  events: Record<string, Stripe.Event[]>,
  wall: { now: number; calls: number } = { now: Infinity, calls: 0 },
  recordedAt: ReadonlyMap<string, number> = new Map(),
): Stripe {
  return {
    events: {
      list: (params: { created: { gte: number; lte: number } }, options: { stripeAccount: string }) => {
        wall.calls++;
        return (async function* () {
          const listed = (events[options.stripeAccount] ?? [])
            .filter((e) => e.created >= params.created.gte && e.created <= params.created.lte)
            .filter((e) => (recordedAt.get(e.id) ?? 0) <= wall.now)
            .sort((a, b) => b.created - a.created);
          yield* listed;
        })();
      },
    },
  } as unknown as Stripe;
}

const ACCOUNTS = [
  { merchantId: '32350000001', account: 'acct_x' },
  { merchantId: '32350000002', account: 'acct_y' },
];

/** `count` connected accounts (ids in the order of their numbers), each with one clearing at START. */
function accountsWithAnEvent(count: number) {
  const accounts = Array.from({ length: count }, (_, i) => ({
    merchantId: String(32350000000 + i),
    account: `acct_${String(i).padStart(4, '0')}`,
  }));
  const events = Object.fromEntries(
    accounts.map(({ account }) => [account, [cleared(`evt_${account}`, START)]]),
  );
  return { accounts, events };
}

/** The ids of the notices of `runs` pages listed from `cursor` on (the backstop's pages). */
async function pages(
  stripe: Stripe,
  accounts: typeof ACCOUNTS,
  cursor: string,
  runs: number,
  now: () => number,
) {
  const seen: string[] = [];
  for (let run = 0; run < runs; run++) {
    const page = await listStripeNotices(stripe, accounts, { cursor, limit: 1, now: iso(now()) });
    seen.push(...page.notices.map((n) => n.noticeId));
    cursor = page.cursor;
  }
  return seen;
}

test('a pass resumed after the event it stopped at passes over no event of the same second, whatever came since', async () => {
  // Two events of acct_x in the same second, one of acct_y.
  const events: Record<string, Stripe.Event[]> = {
    acct_x: [cleared('evt_x1', START), cleared('evt_x2', START)],
    acct_y: [cleared('evt_y1', START)],
  };
  const stripe = stripeWith(events);
  const now = iso(START + 60);
  const first = await listStripeNotices(stripe, ACCOUNTS, { cursor: `from:${START}`, limit: 1, now });
  expect(first.more).toBe(true);
  const seen = first.notices.map((n) => n.noticeId);

  // acct_x records a newer event before the next page: the account's own order is unchanged.
  events.acct_x!.push(cleared('evt_x3', START + 30));
  let cursor = first.cursor;
  for (let run = 0; run < 5; run++) {
    const page = await listStripeNotices(stripe, ACCOUNTS, { cursor, limit: 1, now });
    seen.push(...page.notices.map((n) => n.noticeId));
    cursor = page.cursor;
    if (!page.more) break;
  }
  expect(seen.sort()).toEqual(['evt_x1', 'evt_x2', 'evt_x3', 'evt_y1']);
});

test('a page stopped inside an account resumes in that account only: an account mapped meanwhile, sorting before it, is listed whole', async () => {
  const events: Record<string, Stripe.Event[]> = {
    acct_b: [cleared('evt_b1', START), cleared('evt_b2', START + 1)],
  };
  const stripe = stripeWith(events);
  const now = iso(START + 60);
  const accounts = [{ merchantId: '32350000002', account: 'acct_b' }];
  const first = await listStripeNotices(stripe, accounts, { cursor: `from:${START}`, limit: 1, now });
  expect(first.notices.map((n) => n.noticeId)).toEqual(['evt_b1']);
  // acct_a is mapped before the next page, with an event of the second the page stopped in.
  events.acct_a = [cleared('evt_a1', START)];
  accounts.unshift({ merchantId: '32350000001', account: 'acct_a' });
  const next = await listStripeNotices(stripe, accounts, { cursor: first.cursor, limit: 10, now });
  expect(next.notices.map((n) => n.noticeId)).toEqual(['evt_a1', 'evt_b2']);
});

test('defect: the backstop listed every connected account on every page, so with a few hundred merchants one page outlasted its function and the backstop never moved; a page lists at most 20 accounts', async () => {
  const { accounts, events } = accountsWithAnEvent(250);
  const wall = { now: Infinity, calls: 0 };
  const stripe = stripeWith(events, wall);
  const seen: string[] = [];
  let cursor = `from:${START}`;
  for (let page = 0, more = true; more; page++) {
    expect(page).toBeLessThan(300);
    wall.calls = 0;
    const listed = await listStripeNotices(stripe, accounts, { cursor, limit: 100, now: iso(START + 60) });
    expect(wall.calls).toBeLessThanOrEqual(20);
    seen.push(...listed.notices.map((n) => n.noticeId));
    ({ cursor, more } = listed);
  }
  expect(seen.sort()).toEqual(accounts.map(({ account }) => `evt_${account}`));
});

test("a page ends at the run's deadline, at an account's boundary, and the next goes on from there", async () => {
  const { accounts, events } = accountsWithAnEvent(12);
  // Each listing takes a second of the clock.
  let nowMs = 1_000_000;
  useClock({ nowMs: () => nowMs, sleep: async () => undefined });
  const wall = { now: Infinity, calls: 0 };
  const listing = stripeWith(events, wall);
  const list = listing.events.list.bind(listing.events);
  (listing.events as { list: unknown }).list = (...args: Parameters<typeof list>) => {
    nowMs += 1000;
    return list(...args);
  };
  try {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor = `from:${START}`;
    for (let more = true; more;) {
      wall.calls = 0;
      const page = await listStripeNotices(listing, accounts, {
        cursor,
        limit: 100,
        now: iso(START + 60),
        deadlineMs: nowMs + 3500,
      });
      pages.push(wall.calls);
      seen.push(...page.notices.map((n) => n.noticeId));
      ({ cursor, more } = page);
    }
    expect(pages).toEqual([4, 4, 4]);
    expect(seen).toEqual(accounts.map(({ account }) => `evt_${account}`));
  } finally {
    useClock(undefined);
  }
});

test('defect: an event Stripe recorded late was lost when a pass spanned runs: the next listing reached five minutes behind the run that finished it, not behind the one that listed its second', async () => {
  const n1 = START + 3600;
  const events = {
    acct_x: [cleared('evt_x1', n1 - 50), cleared('evt_x2', n1 - 40), cleared('evt_late', n1 - 55)],
  };
  // evt_late is recorded 155 s after its second, after the first run listed acct_x.
  const wall = { now: n1, calls: 0 };
  const stripe = stripeWith(events, wall, new Map([['evt_late', n1 + 100]]));
  const accounts = ACCOUNTS.slice(0, 1);
  const first = await listStripeNotices(stripe, accounts, { cursor: `t:${n1 - 60}`, limit: 1, now: iso(n1) });
  expect(first.notices.map((n) => n.noticeId)).toEqual(['evt_x1']);
  // The next run comes seven minutes later (the backstop was failing meanwhile), then a run a minute.
  wall.now = n1 + 420;
  const seen = await pages(stripe, accounts, first.cursor, 8, () => (wall.now += 60));
  // evt_x1 again too: relisted five minutes back (the marks make it change nothing).
  expect([...new Set(seen)].sort()).toEqual(['evt_late', 'evt_x1', 'evt_x2']);
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

test("an event rendered in another API version than the adapter's is still read, and named in the log once per version (the operator sets the endpoint's version)", async () => {
  const warned = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  try {
    const old = (id: string) => ({ ...cleared(id, START), api_version: '2020-08-27' }) as Stripe.Event;
    const current = { ...cleared('evt_x3', START), api_version: Stripe.API_VERSION } as Stripe.Event;
    const readIntent = async () => undefined;
    for (const event of [old('evt_x1'), old('evt_x2'), current])
      expect(await noticeOfEvent(event, '32350000001', 'acct_x', readIntent)).toMatchObject({
        kind: 'cleared',
      });
    const versions = warned.mock.calls.filter(([message]) => /another API version/.test(String(message)));
    expect(versions).toEqual([
      [
        'a Stripe event of another API version than the adapter reads',
        { eventId: 'evt_x1', apiVersion: '2020-08-27', adapterApiVersion: Stripe.API_VERSION },
      ],
    ]);
  } finally {
    warned.mockRestore();
  }
});
