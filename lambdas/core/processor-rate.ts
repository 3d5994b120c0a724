/**
 * The processor's rate (issue 24): processing never asks the acquirer for more than
 * PROCESSOR_RATE charges a second across all groups, nor for more than PROCESSOR_GROUP_RATE of one
 * group (its payments' `authResponse` writes share one partition), nor for more than
 * PROCESSOR_MERCHANT_RATE of one merchant's groups together (their events share the merchant's
 * events partition, and one merchant does not take a slot's whole rate). A charge first takes a token
 * of its second's window, counted in the table (store/rate-windows.ts): the rate is cut
 * into RATE_SHARDS windows a second (so that no item is hot), each taken by a conditional ADD
 * that never counts past its share. A task takes tokens RATE_CHUNK at a time and uses them within
 * their second (a token left when its second is over is dropped, never carried into the next). It
 * takes them for the first second that the window's answer still leaves time to use them in, as
 * long as the last answer took: the current second while the table answers quickly, a later one
 * under load (the tokens then wait for their second), so that slow answers never starve a batch.
 *
 * Two lanes: a group's first batch (PROCESS_FIRST_BATCH_SIZE payments) may use the whole rate;
 * every other batch only what the first batches' share leaves (FIRST_LANE_SHARE), so a slot's
 * first answers never queue behind the large groups' batches.
 *
 * A full window is waited out, never refused: the caller waits for the next second (spread over
 * it, so that the waiting tasks do not all come back at once), until its deadline; past it the
 * take answers false and the batch is given back unfinished (core/batches.ts), the state machine
 * looping on to the rest of the range.
 */
import { clock, sleep } from '#shared/clock';
import { config } from '#shared/config';
import { rateWindowNames, rateWindowStore, type RateWindowStore } from '#store/rate-windows';

/** Windows each second's rate is cut into (fewer when the rate is small: each holds a chunk). */
const RATE_SHARDS = 4;
/** Tokens a task takes at once (fewer when its batch needs fewer). */
export const RATE_CHUNK = 8;
/**
 * A token is used only this long before its second ends at the latest: the charge's calls before
 * the processor (a few DynamoDB round trips) then reach the acquirer within the same second.
 */
export const TOKEN_MARGIN_MS = 150;
/** The share of the rate only first batches may use, in the first LEND_AFTER_MS of each second. */
export const FIRST_LANE_SHARE = 0.2;
/** What the first lane left of a second by then is lent to the other batches. */
const LEND_AFTER_MS = 500;

export type RateLane = 'first' | 'rest';

export interface RateLimits {
  /** Charges a second across all groups, of one group, and of one merchant's groups. */
  rate: number;
  groupRate: number;
  merchantRate: number;
}

/**
 * How many windows, and each one's limit for a lane `ms` into the second: together never above the
 * rate. The first lane may fill a window; the others only up to what leaves the first lane its
 * share, until LEND_AFTER_MS, when what it left is theirs too.
 */
export function rateWindows(rate: number, lane: RateLane, ms = 0) {
  const shards = Math.max(1, Math.min(RATE_SHARDS, Math.floor(rate / RATE_CHUNK)));
  const share = lane === 'first' || ms >= LEND_AFTER_MS ? 1 : 1 - FIRST_LANE_SHARE;
  return { shards, limit: Math.max(1, Math.floor((rate * share) / shards)) };
}

export interface RateTokensOptions {
  groupId: string;
  merchantId: string;
  lane: RateLane;
  /** Payments of the batch that will ask for a token (a chunk is never larger). */
  need: number;
  /** No token is taken at or after this time (epoch milliseconds). */
  deadline: number;
  limits?: RateLimits;
  store?: RateWindowStore;
  now?: () => number;
  wait?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** One task's tokens: `take()` answers, in call order, whether the next charge may go. */
export class RateTokens {
  private readonly limits: RateLimits;
  private readonly store: RateWindowStore;
  private readonly now: () => number;
  private readonly wait: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private left = 0;
  private second = -1;
  /** How long the last window take took to answer (ms). */
  private lead = 0;
  private need: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** True once the deadline passed: every later take answers false. */
  held = false;
  /** Tokens taken from the table, and used (the rest were dropped with their second). */
  taken = 0;
  used = 0;

  constructor(private readonly options: RateTokensOptions) {
    this.limits = options.limits ?? {
      rate: config().processorRate,
      groupRate: config().processorGroupRate,
      merchantRate: config().processorMerchantRate,
    };
    this.store = options.store ?? rateWindowStore();
    this.now = options.now ?? clock.nowMs;
    this.wait = options.wait ?? sleep;
    this.random = options.random ?? Math.random;
    this.need = options.need;
  }

  /** Waits for a token of the current second: true, or false once the deadline has passed. */
  take(): Promise<boolean> {
    const next = this.queue.then(() => this.takeOne());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async takeOne(): Promise<boolean> {
    for (;;) {
      const now = this.now();
      if (this.held || now >= this.options.deadline) {
        this.held = true;
        return false;
      }
      if (this.left > 0) {
        const begins = this.second * 1000;
        // Taken ahead, for a second not begun yet: used once it has.
        if (now < begins) {
          await this.wait(Math.min(begins - now, this.options.deadline - now));
          continue;
        }
        if (now < begins + 1000 - TOKEN_MARGIN_MS) {
          this.left--;
          this.need--;
          this.used++;
          return true;
        }
        this.left = 0; // its second is over: dropped, never used in the next
      }
      const second = this.reachableSecond(now);
      const ms = Math.max(0, now - second * 1000);
      const lane = rateWindows(this.limits.rate, this.options.lane, ms).limit;
      const { groupRate, merchantRate } = this.limits;
      const n = Math.max(1, Math.min(RATE_CHUNK, this.need, groupRate, merchantRate, lane));
      const asked = now;
      const got = await this.takeWindow(second, n, lane);
      this.lead = this.now() - asked;
      if (got) {
        this.second = second;
        this.left = n;
        this.taken += n;
        continue;
      }
      const later = this.now();
      const untilNext = (second + 1) * 1000 - later + this.random() * (1000 - TOKEN_MARGIN_MS);
      await this.wait(Math.max(1, Math.min(untilNext, this.options.deadline - later)));
    }
  }

  /**
   * The second whose tokens to take at `now`: the first one whose window's answer, as long in
   * coming as the last one was (its round trip and the event loop's delay), still leaves time to
   * use them. The current second while the table answers quickly; a later one under load, whose
   * tokens then wait for it (issue 24 follow-up: under a loaded runtime every take came back past
   * its second's margin and was dropped, and the batches starved).
   */
  private reachableSecond(now: number): number {
    const answered = now + this.lead;
    const second = Math.floor(answered / 1000);
    return answered - second * 1000 < 1000 - TOKEN_MARGIN_MS ? second : second + 1;
  }

  /**
   * `n` tokens of `second`: the group's window first, then its merchant's, then one shard with
   * room; what a later window refuses is given back to the earlier ones.
   */
  private async takeWindow(second: number, n: number, limit: number): Promise<boolean> {
    const group = rateWindowNames.group(this.options.groupId);
    const merchant = rateWindowNames.merchant(this.options.merchantId);
    if (!(await this.store.take(group, second, n, this.limits.groupRate))) return false;
    if (await this.store.take(merchant, second, n, this.limits.merchantRate)) {
      const { shards } = rateWindows(this.limits.rate, this.options.lane);
      const first = Math.floor(this.random() * shards);
      for (let i = 0; i < shards; i++) {
        if (await this.store.take(rateWindowNames.shard((first + i) % shards), second, n, limit)) return true;
      }
      await this.store.giveBack(merchant, second, n);
    }
    await this.store.giveBack(group, second, n);
    return false;
  }
}

/** A charge that got no token before its task's deadline: its payment waits for the next batch. */
export class RateHeldError extends Error {
  override readonly name = 'RateHeld';
  constructor() {
    super("not tried: the processor's rate was taken until the task's deadline");
  }
}

/** A pacing step for core/charge.ts: a token, or RateHeldError. */
export const paceWith = (tokens: RateTokens) => async (): Promise<void> => {
  if (!(await tokens.take())) throw new RateHeldError();
};
