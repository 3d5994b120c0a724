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
 *
 * A timeout (`withTimeout`) is not read from the clock: it bounds a wait on something outside the
 * code (a processor, a webhook receiver, DNS, a response body), which answers in real time whatever
 * the clock says, so it always runs on a real timer.
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Resolves once `ms` milliseconds of this clock have passed. */
  sleep(ms: number): Promise<void>;
}

/** The system's clock: `Date.now()` (which Jest's fake `Date` moves too) and a timer. */
const systemClock: Clock = {
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

/**
 * `work`'s outcome, or `onTimeout()`'s (its value, or what it throws) if `work` has not settled
 * within `ms` milliseconds of real time: the one timeout of the service. The timer is cleared as
 * soon as either comes. `work` itself runs on: `onTimeout` stops it where it can (destroys a request).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
