/**
 * The backstop's listing of Stripe's events (docs/decisions.md "Stripe's events as notices"):
 * passes over the connected accounts, each a stretch of time, a few accounts a page, read as
 * notices by notices.ts.
 */
import type Stripe from 'stripe';
import type { NoticeListing, NoticePage, ProcessorNotice } from '#processor/processor';
import { clock } from '#shared/clock';
import { must } from './calls';
import { intentReader, noticeOfEvent } from './notices';

type Accounts = readonly { merchantId: string; account: string }[];

/** The event types that can be notices: what the listing asks Stripe for. */
const NOTICE_EVENT_TYPES = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'payment_method.automatically_updated',
  'charge.refund.updated',
  'refund.updated',
  'refund.failed',
] as const;

/**
 * How far back a pass reaches behind the time it began: an event Stripe records a little late
 * (after the pass listed its account) is listed by the next pass; the marks make a relisted
 * notice change nothing.
 */
const RELIST_SECONDS = 300;
/** The longest stretch of time one pass lists (a backstop that fell behind catches up by stretches). */
const WINDOW_SECONDS = 3600;
/** The most events one listing reads of one account (bounded work); a busier stretch is narrowed. */
const MAX_EVENTS_PER_ACCOUNT = 2000;
/**
 * The most accounts one page lists (bounded work, whatever the number of merchants): a pass over
 * every account takes as many pages as it needs, each a few seconds.
 */
const ACCOUNTS_PER_PAGE = 20;

/**
 * A pass: every connected account's events from `since` to `until` (seconds, inclusive), the
 * accounts in the order of their ids. `began` is when the pass began (the next pass reaches
 * RELIST_SECONDS behind it); `done` the last account fully listed; `after` the last event taken of
 * an account a page stopped inside (it applies to that account only: another may have come
 * between, or that one gone, by the next page).
 */
interface Pass {
  since: number;
  until: number;
  began: number;
  done?: string;
  after?: { account: string; created: number; id: string };
}

/**
 * The cursor:
 * - `pass:<since>:<until>:<began>:<account done or ->[:<account>:<created>:<event id>]`: a pass is
 *   under way (with the event a page stopped at, of the account it stopped inside);
 * - `next:<since>`: the last pass ended; the next lists from that second.
 * Cursors of earlier versions (`t:`, `from:`, `after:`) start a pass where they said the listing
 * stood. None (or another processor's): a pass from an hour before now.
 */
function parseCursor(cursor: string | undefined, now: number): Pass {
  const fresh = (since: number): Pass => ({
    since,
    until: Math.min(now, since + WINDOW_SECONDS),
    began: now,
  });
  const c = cursor ?? '';
  const pass = /^pass:(\d+):(\d+):(\d+):(acct_\w+|-)(?::(acct_\w+):(\d+):(evt_\w+))?$/.exec(c);
  if (pass) {
    const [, since, until, began, done, account, created, id] = pass;
    return {
      since: Number(since),
      until: Number(until),
      began: Number(began),
      ...(done !== '-' && { done }),
      ...(account !== undefined && id !== undefined && { after: { account, created: Number(created), id } }),
    };
  }
  const next = /^(?:next|from):(\d+)$/.exec(c) ?? /^after:(\d+):evt_\w+$/.exec(c);
  if (next) return fresh(Number(next[1]));
  const at = /^t:(\d+)$/.exec(c);
  if (at) return fresh(Number(at[1]) - RELIST_SECONDS);
  return fresh(now - WINDOW_SECONDS);
}

function cursorOf(
  pass: Pass,
  done: string | undefined,
  after?: { account: string; event: Stripe.Event },
): string {
  const head = `pass:${pass.since}:${pass.until}:${pass.began}:${done ?? '-'}`;
  return after ? `${head}:${after.account}:${after.event.created}:${after.event.id}` : head;
}

/**
 * Where the pass after `pass` begins: after its stretch, but no later than RELIST_SECONDS before
 * the pass began (every listing of it came after that). It may not move at all (a pass that began
 * within five minutes of its start): the next run's pass begins later.
 */
const nextSince = (pass: Pass): number =>
  Math.min(pass.until + 1, Math.max(pass.since, pass.began - RELIST_SECONDS));

/**
 * The account's notice events from `since` to `until` (seconds, inclusive), oldest first (in
 * Stripe's own order within a second), or undefined when there are more than
 * MAX_EVENTS_PER_ACCOUNT of them (Stripe lists newest first: a listing cut short misses the
 * oldest, which must come first).
 */
async function eventsOf(
  stripe: Stripe,
  account: string,
  since: number,
  until: number,
): Promise<Stripe.Event[] | undefined> {
  return must('notice listing', async () => {
    const events: Stripe.Event[] = [];
    const list = stripe.events.list(
      { types: [...NOTICE_EVENT_TYPES], created: { gte: since, lte: until }, limit: 100 },
      { stripeAccount: account },
    );
    for await (const event of list) {
      if (events.length === MAX_EVENTS_PER_ACCOUNT) return undefined;
      events.push(event);
    }
    // Listed newest first: reversed, oldest first (within a second, in Stripe's order reversed).
    return events.reverse();
  });
}

/** Where a listing resumes: after the event a page stopped at (should it be gone, after its second). */
function resumeIndex(
  events: readonly Stripe.Event[],
  after: { created: number; id: string } | undefined,
): number {
  if (after === undefined) return 0;
  const at = events.findIndex((event) => event.id === after.id);
  if (at >= 0) return at + 1;
  const later = events.findIndex((event) => event.created > after.created);
  return later >= 0 ? later : events.length;
}

/**
 * The notices of the connected accounts, a page of the backstop's pass over them (bounded: at
 * most ACCOUNTS_PER_PAGE accounts, at most MAX_EVENTS_PER_ACCOUNT events of each, at most `limit`
 * notices, and ended early at the run's deadline), each account's oldest first. Events that are
 * not notices are passed over (the cursor moves past them). `more` says a run should list again
 * at once.
 */
export async function listStripeNotices(
  stripe: Stripe,
  accounts: Accounts,
  request: NoticeListing & { now: string },
): Promise<NoticePage> {
  const now = Math.floor(Date.parse(request.now) / 1000);
  const pass = parseCursor(request.cursor, now);
  const pending = [...accounts]
    .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0))
    .filter(({ account }) => pass.done === undefined || account > pass.done);
  const readIntent = intentReader(stripe);
  const notices: ProcessorNotice[] = [];
  let done = pass.done;
  const full = () => notices.length >= Math.max(1, request.limit);
  // Past the run's deadline: the page ends at the next boundary, once it took something (every
  // page moves on) and not before the first event of an account it listed (its listing is paid).
  const late = () => request.deadlineMs !== undefined && clock.nowMs() >= request.deadlineMs;
  for (const { merchantId, account } of pending.slice(0, ACCOUNTS_PER_PAGE)) {
    if (full() || (done !== pass.done && late()))
      return { notices, cursor: cursorOf(pass, done), more: true };
    let events = await eventsOf(stripe, account, pass.since, pass.until);
    // Too many: half the stretch, until it fits (the accounts listed before keep what they read).
    while (events === undefined) {
      if (pass.until === pass.since)
        throw new Error(`more than ${MAX_EVENTS_PER_ACCOUNT} notice events of ${account} in one second`);
      pass.until = pass.since + Math.floor((pass.until - pass.since) / 2);
      events = await eventsOf(stripe, account, pass.since, pass.until);
    }
    const left = events.slice(resumeIndex(events, pass.after?.account === account ? pass.after : undefined));
    for (const [index, event] of left.entries()) {
      // Full, or late, after the event before (the check above saw this account's first one free).
      if (full() || (index > 0 && late())) {
        const last = left[index - 1];
        return { notices, cursor: cursorOf(pass, done, last && { account, event: last }), more: true };
      }
      const notice = await noticeOfEvent(event, merchantId, account, readIntent);
      if (notice) notices.push(notice);
    }
    done = account;
  }
  if (pending.length > ACCOUNTS_PER_PAGE) return { notices, cursor: cursorOf(pass, done), more: true };
  // The pass is over: the next begins at the next run, or at once when this one's stretch ended
  // before now and the next moves on.
  const since = nextSince(pass);
  return { notices, cursor: `next:${since}`, more: pass.until < now && since > pass.since };
}
