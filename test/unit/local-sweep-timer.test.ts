/**
 * The local sweeper's timer (lib/local/sweeper.ts): every SWEEP_INTERVAL_MINUTES unless
 * LOCAL_SWEEP_TIMER is off, as the e2e runtimes run it. The InvokeStore (which needs ESM's dynamic
 * import, missing from Jest's CommonJS runtime) is a pass-through here, as in
 * local-gateway-timeouts.test.ts; the e2e tier runs the real one.
 */
import { SWEEP_INTERVAL_MINUTES } from '#contract/processing';
import type * as Sweeper from '#lib/local/sweeper';
import { passThroughInvokeStore } from '#support/invoke-store-passthrough';

jest.doMock('@aws/lambda-invoke-store', passThroughInvokeStore);
/** Loaded after the pass-through store (jest.doMock is not hoisted above imports here). */
let localSweeper: typeof Sweeper.localSweeper;
let sweepTimerEnabled: typeof Sweeper.sweepTimerEnabled;
beforeAll(async () => {
  ({ localSweeper, sweepTimerEnabled } = await import('#lib/local/sweeper'));
});

afterEach(() => jest.useRealTimers());

const sweeps = () => {
  const calls: unknown[] = [];
  return { calls, handler: async (input: unknown) => void calls.push(input) };
};
const route = async (sweeper: Awaited<ReturnType<typeof Sweeper.localSweeper>>, body: string) =>
  sweeper.routes[0]![1]({} as never, body);

describe("defect: the local sweeper's timer settles money-safety's stale Pending sale before the test reads it", () => {
  it('with the timer off, no sweep runs however long the runtime waits; the route still sweeps', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-26T21:00:00Z') });
    const { calls, handler } = sweeps();
    const sweeper = await localSweeper({ timer: false, handler });
    await jest.advanceTimersByTimeAsync(3 * SWEEP_INTERVAL_MINUTES * 60_000);
    expect(calls).toEqual([]);
    expect(await route(sweeper, '{"olderThanSeconds":0}')).toMatchObject({ status: 200 });
    expect(calls).toEqual([{ time: '2026-11-26T21:15:00.000Z', olderThanSeconds: 0 }]);
    sweeper.stop();
  });

  it('with the timer on (the default), a sweep every SWEEP_INTERVAL_MINUTES, none after stop', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-26T21:00:00Z') });
    const { calls, handler } = sweeps();
    const sweeper = await localSweeper({ timer: true, handler });
    await jest.advanceTimersByTimeAsync(SWEEP_INTERVAL_MINUTES * 60_000 - 1);
    expect(calls).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([{ time: '2026-11-26T21:05:00.000Z' }]);
    sweeper.stop();
    await jest.advanceTimersByTimeAsync(3 * SWEEP_INTERVAL_MINUTES * 60_000);
    expect(calls).toHaveLength(1);
  });

  it('LOCAL_SWEEP_TIMER is on unless off, and refuses any other value', () => {
    expect(sweepTimerEnabled(undefined)).toBe(true);
    expect(sweepTimerEnabled('')).toBe(true);
    expect(sweepTimerEnabled('on')).toBe(true);
    expect(sweepTimerEnabled('off')).toBe(false);
    expect(() => sweepTimerEnabled('0')).toThrow('LOCAL_SWEEP_TIMER must be on or off (got 0)');
  });
});
