/**
 * The processor's rate as the model takes it: each task's tokens as core/processor-rate.ts
 * RateTokens takes them (the group's window, then a shard's, RATE_CHUNK at a time, the first batch
 * in its own lane; a full window waited out to the next second, spread over it; nothing taken at
 * or past the task's deadline, when the batch is given back unfinished). Every conditional write,
 * taken or not, is a write unit on the table.
 */
import { RATE_CHUNK, rateWindows, TOKEN_MARGIN_MS, type RateLane } from '../../lambdas/core/processor-rate';
import type { EventQueue } from './queue';
import type { PeakPerSecond } from './quotas';

const TOKEN_MARGIN_SECONDS = TOKEN_MARGIN_MS / 1000;

/** A window of the rate: its second and what was taken of it. */
export interface Window {
  second: number;
  used: number;
}

/** Takes `n` of window `w` for `second` if it stays within `limit` (store/rate-windows.ts take). */
export const takeWindow = (w: Window, second: number, n: number, limit: number): boolean => {
  if (w.second !== second) {
    w.second = second;
    w.used = 0;
  }
  if (w.used + n > limit) return false;
  w.used += n;
  return true;
};

export interface RateTokensModel {
  q: EventQueue;
  random: () => number;
  /** The rate's windows of each second, and each group's own. */
  shards: Window[];
  groupWindows: Map<number, Window>;
  limiterRate: number;
  groupRate: number;
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
  const { q, random, shards, groupWindows, limiterRate, groupRate, callSeconds, tablePeak, counters } = model;
  return (g: number, lane: RateLane, need: number, deadline: number) => {
    let left = 0;
    let second = -1;
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
      const sec = Math.floor(q.now);
      if (left > 0 && second === sec && q.now < sec + 1 - TOKEN_MARGIN_SECONDS) {
        left--;
        need--;
        waiting.shift()!(true);
        return pump();
      }
      left = 0;
      const into = q.now - sec;
      const { limit } = rateWindows(limiterRate, lane, into * 1000);
      const n = Math.max(1, Math.min(RATE_CHUNK, need, groupRate, limit));
      const groupWindow = groupWindows.get(g) ?? { second: -1, used: 0 };
      groupWindows.set(g, groupWindow);
      let calls = 0;
      let got = false;
      if (into < 1 - TOKEN_MARGIN_SECONDS && (calls++, takeWindow(groupWindow, sec, n, groupRate))) {
        const first = Math.floor(random() * shards.length);
        for (let i = 0; i < shards.length && !got; i++) {
          calls++;
          got = takeWindow(shards[(first + i) % shards.length]!, sec, n, limit);
        }
        if (!got) {
          groupWindow.used -= n; // given back
          calls++;
        }
      }
      counters.limiterCalls += calls;
      tablePeak.add(q.now, calls); // a conditional write is a write unit, taken or not
      if (got)
        return q.after(calls * callSeconds, () => {
          second = sec;
          left = n;
          pump();
        });
      counters.chargesPaced++;
      const untilNext = sec + 1 - q.now + random() * (1 - TOKEN_MARGIN_SECONDS);
      q.after(calls * callSeconds + Math.max(0.001, Math.min(untilNext, deadline - q.now)), pump);
    };
    return (cb: (ok: boolean) => void) => {
      waiting.push(cb);
      if (!busy) pump();
    };
  };
}
