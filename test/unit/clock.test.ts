/** The service's one clock (lambdas/shared/clock.ts), the test clock that sets it, and the one timeout. */
import { clock, sleep, useClock, withTimeout } from '#shared/clock';
import { TestClock, useTestClock } from '#support/clock';

afterEach(() => {
  useClock(undefined);
  jest.useRealTimers();
});

describe('the clock', () => {
  it("reads the system's time by default, as Jest's fake Date moves it", () => {
    jest.useFakeTimers({ now: Date.parse('2031-05-01T10:00:00Z'), doNotFake: ['setImmediate', 'nextTick'] });
    expect(clock.now().toISOString()).toBe('2031-05-01T10:00:00.000Z');
    jest.setSystemTime(Date.parse('2031-05-01T11:30:00Z'));
    expect(clock.nowMs()).toBe(Date.parse('2031-05-01T11:30:00Z'));
  });

  it("sleeps on the system's timers by default", async () => {
    jest.useFakeTimers({ now: 0 });
    let woke = false;
    const pause = sleep(500).then(() => (woke = true));
    await jest.advanceTimersByTimeAsync(499);
    expect(woke).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await pause;
    expect(woke).toBe(true);
  });

  it('reads the time, and sleeps, on the clock a test puts in place, until it is given back', async () => {
    const test = useTestClock('2031-05-01T10:00:00Z');
    expect(clock.now().toISOString()).toBe('2031-05-01T10:00:00.000Z');
    test.advance(90_000);
    expect(clock.now().toISOString()).toBe('2031-05-01T10:01:30.000Z');
    await sleep(2_500);
    expect(test.slept).toEqual([2_500]);
    expect(clock.nowMs()).toBe(Date.parse('2031-05-01T10:01:32.500Z'));
    test.set('2031-06-01T00:00:00Z');
    expect(clock.now().toISOString()).toBe('2031-06-01T00:00:00.000Z');

    useClock(undefined);
    const before = Date.now();
    const read = clock.nowMs();
    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(Date.now());
  });

  it('a test clock stands still between sleeps and refuses a time that is not one', () => {
    const test = new TestClock(1_000);
    expect([test.nowMs(), test.nowMs()]).toEqual([1_000, 1_000]);
    expect(() => test.set('not a time')).toThrow('not a time: not a time');
  });
});

describe('withTimeout', () => {
  const never = () => new Promise<string>(() => undefined);

  it("answers the work's value or error when it settles in time, and leaves no timer behind", async () => {
    jest.useFakeTimers();
    await expect(withTimeout(Promise.resolve('done'), 1_000, () => 'late')).resolves.toBe('done');
    await expect(withTimeout(Promise.reject(new Error('refused')), 1_000, () => 'late')).rejects.toThrow(
      'refused',
    );
    expect(jest.getTimerCount()).toBe(0);
  });

  it('answers what onTimeout gives, or throws, once the time is up, and not a moment before', async () => {
    jest.useFakeTimers();
    let stopped = false;
    const answer = withTimeout(never(), 1_000, () => {
      stopped = true;
      return 'timeout';
    });
    await jest.advanceTimersByTimeAsync(999);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toBe('timeout');

    const thrown = withTimeout(never(), 500, () => {
      throw new Error('no answer within 500 ms');
    });
    const settled = expect(thrown).rejects.toThrow('no answer within 500 ms');
    await jest.advanceTimersByTimeAsync(500);
    await settled;
    expect(jest.getTimerCount()).toBe(0);
  });

  it('runs on real timers whatever clock the service reads: a test clock does not expire it', async () => {
    const test = useTestClock(0);
    jest.useFakeTimers();
    const answer = withTimeout(never(), 1_000, () => 'timeout');
    test.advance(60_000);
    await sleep(60_000);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(answer).resolves.toBe('timeout');
  });
});
