/**
 * The processor's rate as the model takes it: each task's tokens as core/processor-rate.ts
 * RateTokens takes them (the group's window, then its merchant's, then a shard's, RATE_CHUNK at a time, the first batch
 * in its own lane; tokens taken for the first second the take's answer can still use, as the
 * limiter's reachableSecond does; a full window waited out to the next second, spread over it; nothing taken at
 * or past the task's deadline, when the batch is given back unfinished). Every conditional write,
 * taken or not, is a write unit on the table.
 */
import { RATE_CHUNK, rateWindows, TOKEN_MARGIN_MS, type RateLane } from '../../lambdas/core/processor-rate';
import type { EventQueue } from './queue';
import type { PeakPerSecond } from './quotas';

const TOKEN_MARGIN_SECONDS = TOKEN_MARGIN_MS / 1000;

/**
 * A window of the rate: what was taken of it in each second (the table keeps one item a second;
 * the model keeps the seconds still in use, a taker reaching one second ahead at most).
 */
export interface Window {
  used: Map<number, number>;
}

export const newWindow = (): Window => ({ used: new Map() });

/** Takes `n` of window `w` for `second` if it stays within `limit` (store/rate-windows.ts take). */
export const takeWindow = (w: Window, second: number, n: number, limit: number): boolean => {
  const used = w.used.get(second) ?? 0;
  if (used + n > limit) return false;
  w.used.set(second, used + n);
  // Seconds long past are never taken again.
  if (w.used.size > 4) for (const s of w.used.keys()) if (s < second - 2) w.used.delete(s);
  return true;
};

/** Gives `n` taken of `second` back (store/rate-windows.ts giveBack). */
const giveBack = (w: Window, second: number, n: number): void => {
  w.used.set(second, (w.used.get(second) ?? 0) - n);
};

interface RateTokensModel {
  q: EventQueue;
  random: () => number;
  /** The rate's windows of each second, each group's own, and each merchant's. */
  shards: Window[];
  groupWindows: Map<number, Window>;
  merchantWindows: Map<number, Window>;
  /** Group `g`'s merchant. */
  merchantOf: (g: number) => number;
  limiterRate: number;
  groupRate: number;
  merchantRate: number;
  /** A DynamoDB call's time. */
  callSeconds: number;
  tablePeak: PeakPerSecond;
  counters: { limiterCalls: number; chargesPaced: number };
}

/**
 * One task's tokens for group `g`: `take(cb)` answers in call order, true for a token of the
 * current second, false once the deadline has passed.
 */
export function rateTokensModel(model: RateTokensModel) {
  const {
    q,
    random,
    shards,
    groupWindows,
    merchantWindows,
    merchantOf,
    limiterRate,
    groupRate,
    merchantRate,
  } = model;
  const { callSeconds, tablePeak, counters } = model;
  return (g: number, lane: RateLane, need: number, deadline: number) => {
    let left = 0;
    let second = -1;
    /** How long the last window take took (its calls): RateTokens' `lead`. */
    let lead = 0;
    let held = false;
    let busy = false;
    const waiting: ((ok: boolean) => void)[] = [];
    const pump = (): void => {
      if (waiting.length === 0) {
        busy = false;
        return;
      }
      busy = true;
      if (held || q.now >= deadline) {
        held = true;
        busy = false;
        for (const cb of waiting.splice(0)) cb(false);
        return;
      }
      const now = q.now;
      if (left > 0) {
        // Taken ahead, for a second not begun yet: used once it has.
        if (now < second) return q.after(Math.min(second - now, deadline - now), pump);
        if (now < second + 1 - TOKEN_MARGIN_SECONDS) {
          left--;
          need--;
          waiting.shift()!(true);
          return pump();
        }
        left = 0; // its second is over: dropped, never used in the next
      }
      // The first second whose tokens the window's answer, as long in coming as the last one was,
      // still leaves time to use: the current one, or the next (RateTokens.reachableSecond).
      const answered = now + lead;
      const target =
        answered - Math.floor(answered) < 1 - TOKEN_MARGIN_SECONDS
          ? Math.floor(answered)
          : Math.floor(answered) + 1;
      const { limit } = rateWindows(limiterRate, lane, Math.max(0, now - target) * 1000);
      const n = Math.max(1, Math.min(RATE_CHUNK, need, groupRate, merchantRate, limit));
      const groupWindow = groupWindows.get(g) ?? newWindow();
      groupWindows.set(g, groupWindow);
      const m = merchantOf(g);
      const merchantWindow = merchantWindows.get(m) ?? newWindow();
      merchantWindows.set(m, merchantWindow);
      let calls = 1;
      let got = false;
      if (takeWindow(groupWindow, target, n, groupRate)) {
        calls++;
        if (takeWindow(merchantWindow, target, n, merchantRate)) {
          const first = Math.floor(random() * shards.length);
          for (let i = 0; i < shards.length && !got; i++) {
            calls++;
            got = takeWindow(shards[(first + i) % shards.length]!, target, n, limit);
          }
          if (!got) {
            giveBack(merchantWindow, target, n);
            calls++;
          }
        }
        if (!got) {
          giveBack(groupWindow, target, n);
          calls++;
        }
      }
      counters.limiterCalls += calls;
      tablePeak.add(now, calls); // a conditional write is a write unit, taken or not
      lead = calls * callSeconds;
      if (got)
        return q.after(lead, () => {
          second = target;
          left = n;
          pump();
        });
      counters.chargesPaced++;
      const later = now + lead;
      const untilNext = target + 1 - later + random() * (1 - TOKEN_MARGIN_SECONDS);
      q.after(lead + Math.max(0.001, Math.min(untilNext, deadline - later)), pump);
    };
    return (cb: (ok: boolean) => void) => {
      waiting.push(cb);
      if (!busy) pump();
    };
  };
}
