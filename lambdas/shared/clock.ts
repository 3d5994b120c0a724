/**
 * The service's one clock. Every layer of lambdas/ reads the time here (`clock.now()`,
 * `clock.nowMs()`) and pauses here (`sleep`), never through `new Date()`, `Date.now()` or a timer of
 * its own: ESLint refuses those anywhere else in lambdas/ (eslint.config.mjs, "the clock rule").
 * A route or task reads the time once, at its start, and passes that `now` down; deadlines and
 * budgets read it as they go.
 *
 * The time is an input: a test sets the clock (`useClock`), and everything the service does then
 * happens at that time, the Stripe stand-in's key ages and signatures included (it reads this clock
 * too). A test clock that moves only when slept on makes a backoff, a pace or a deadline exact.
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Resolves once `ms` milliseconds of this clock have passed. */
  sleep(ms: number): Promise<void>;
}

/** The system's clock: `Date.now()` (which Jest's fake `Date` moves too) and a timer. */
export const systemClock: Clock = {
  nowMs: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

let current: Clock = systemClock;

/** The time, read from the clock in use at each call. */
export const clock = {
  now: (): Date => new Date(current.nowMs()),
  nowMs: (): number => current.nowMs(),
};

/** Waits `ms` milliseconds of the clock: the one pause of the service (backoffs, pacing, latency). */
export const sleep = (ms: number): Promise<void> => current.sleep(ms);

/** Test hook: read the time from, and sleep on, this clock (undefined: the system's again). */
export const useClock = (c: Clock | undefined): void => {
  current = c ?? systemClock;
};

