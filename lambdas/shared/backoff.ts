/**
 * The one bounded backoff: waits that grow by a factor from a first one, up to a cap, optionally
 * spread out by jitter; and the one retry loop, which sleeps them (on the one clock) between the
 * tries of a call, bounded by a number of tries or a deadline. Transient AWS errors, a sale's
 * unanswered processor call and optimistic concurrency's lost races (optimistic-concurrency.ts)
 * all retry through it. (The TypeScript client keeps its own, client/transport.ts: it imports
 * nothing of the service.)
 */
import { clock, sleep } from './clock';

export interface BackoffDelays {
  /** The wait after the first failure. */
  firstMs: number;
  /** Each wait is this many times the one before (default 2). */
  factor?: number;
  /** No wait is longer (default: no cap). */
  maxMs?: number;
  /**
   * Spreads retries out: `half` draws each wait between half of it and all of it; `full` between
   * none of it and all of it (racers on one item, each as likely to go first).
   */
  jitter?: 'half' | 'full';
}

/** The wait after the `failure`-th failure (1 for the first). */
export function backoffDelay(
  failure: number,
  { firstMs, factor = 2, maxMs = Infinity, jitter }: BackoffDelays,
  random: () => number = Math.random,
): number {
  const full = Math.min(maxMs, firstMs * factor ** (failure - 1));
  if (jitter === 'half') return full / 2 + (random() * full) / 2;
  return jitter === 'full' ? random() * full : full;
}

interface BackoffOptions extends BackoffDelays {
  /** Tries in all, the first included. */
  attempts: number;
  /** No try starts after this time (milliseconds since the epoch). */
  deadline?: number;
  /** Whether a failure is worth another try (default: every failure is). */
  retryable?: (error: unknown) => boolean;
  /** Told of each failure that is tried again, before the wait. */
  onRetry?: (error: unknown, failure: number) => void;
}

/**
 * Runs `attempt` until it resolves; after a failure, waits the backoff and tries again. Throws the
 * last failure once the tries or the time are spent, or at once when it is not retryable.
 */
export async function withBackoff<T>(
  attempt: (failures: number) => Promise<T>,
  options: BackoffOptions,
): Promise<T> {
  for (let failures = 0; ;) {
    try {
      return await attempt(failures);
    } catch (error) {
      failures++;
      const spent =
        failures >= options.attempts || (options.deadline !== undefined && clock.nowMs() > options.deadline);
      if (spent || !(options.retryable?.(error) ?? true)) throw error;
      options.onRetry?.(error, failures);
      await sleep(backoffDelay(failures, options));
    }
  }
}
