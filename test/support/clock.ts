/**
 * A test clock for the service's one clock (lambdas/shared/clock.ts): it stands still until a test
 * sets or advances it, and a sleep on it moves it by that much at once (after letting pending I/O
 * run), recording each sleep. `useTestClock` puts one in place for the service; `useClock(undefined)`
 * gives the system's clock back.
 */
import { setImmediate } from 'node:timers/promises';
import { useClock, type Clock } from '#shared/clock';

export class TestClock implements Clock {
  private ms: number;
  /** Every sleep taken on this clock, in milliseconds, in order. */
  readonly slept: number[] = [];

  constructor(start: number | string | Date) {
    this.ms = TestClock.msOf(start);
  }

  private static msOf(at: number | string | Date): number {
    const ms = typeof at === 'number' ? at : new Date(at).getTime();
    if (!Number.isFinite(ms)) throw new Error(`not a time: ${String(at)}`);
    return ms;
  }

  nowMs(): number {
    return this.ms;
  }

  now(): Date {
    return new Date(this.ms);
  }

  set(at: number | string | Date): void {
    this.ms = TestClock.msOf(at);
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    // A real turn of the event loop first: what the sleeper waits on (a socket, a timer of the
    // test) can still happen, as during a real pause.
    await setImmediate();
    this.ms += Math.max(0, ms);
  }
}

/** A test clock at `start`, now the service's clock. */
export function useTestClock(start: number | string | Date): TestClock {
  const c = new TestClock(start);
  useClock(c);
  return c;
}

/**
 * Runs `work` on the system's clock, but with every pause slept on it passing at once (after a real
 * turn of the event loop) and moving the clock on by its length: the service's time reads as if it
 * had waited. For a backoff between real calls (a processor that does not answer), whose waits are
 * then checked in `pauses` rather than waited out. Its value, and the system's clock back, when `work` ends.
 */
export async function skippingSleeps<T>(work: () => Promise<T>): Promise<{ value: T; pauses: number[] }> {
  const pauses: number[] = [];
  let slept = 0;
  useClock({
    nowMs: () => Date.now() + slept,
    async sleep(ms) {
      pauses.push(ms);
      await setImmediate();
      slept += Math.max(0, ms);
    },
  });
  try {
    return { value: await work(), pauses };
  } finally {
    useClock(undefined);
  }
}

/**
 * Moves Jest's fake `Date` to `ms`, leaving timers and sockets real: for code that reads the time
 * from the system clock (shared/clock's default) beside real network calls, as the Stripe stand-in's.
 */
export function clockAt(ms: number): void {
  jest.useFakeTimers({
    now: ms,
    doNotFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'setImmediate',
      'clearImmediate',
      'nextTick',
      'queueMicrotask',
      'hrtime',
      'performance',
    ],
  });
}
