/**
 * The local hourly rule (lib/local/daily-timer.ts): a tick at each UTC hour boundary with that
 * hour's time, unless LOCAL_HOURLY_TICK is off. The e2e runtimes turn it off: a real hour's tick
 * raced processing-supervision's own tick for the same stopped group (CI, 2026-11-26 17:00).
 */
import { everyDay, everyHour, hourlyTickEnabled } from '#lib/local/daily-timer';

afterEach(() => jest.useRealTimers());

describe('the local hourly tick', () => {
  it('ticks at each UTC hour boundary with that hour as its time', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-26T16:59:58Z') });
    const times: string[] = [];
    const timer = everyHour(async (time) => void times.push(time), 'hourly tick');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(times).toEqual([]);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(times).toEqual(['2026-11-26T17:00:00.000Z']);
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(times).toEqual(['2026-11-26T17:00:00.000Z', '2026-11-26T18:00:00.000Z']);
    timer.stop();
    await jest.advanceTimersByTimeAsync(3 * 3_600_000);
    expect(times).toHaveLength(2);
  });

  it('is on unless LOCAL_HOURLY_TICK is off, and refuses any other value', () => {
    expect(hourlyTickEnabled(undefined)).toBe(true);
    expect(hourlyTickEnabled('')).toBe(true);
    expect(hourlyTickEnabled('on')).toBe(true);
    expect(hourlyTickEnabled('off')).toBe(false);
    expect(() => hourlyTickEnabled('0')).toThrow('LOCAL_HOURLY_TICK must be on or off (got 0)');
  });

  it('shares its timer with the daily rule: the schedule time each day, today if still ahead', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-26T02:59:58Z') });
    const times: string[] = [];
    const timer = everyDay({ hour: 3, minute: 0 }, async (time) => void times.push(time), 'daily job');
    await jest.advanceTimersByTimeAsync(3_000);
    expect(times).toEqual(['2026-11-26T03:00:00.000Z']);
    await jest.advanceTimersByTimeAsync(86_400_000);
    expect(times).toEqual(['2026-11-26T03:00:00.000Z', '2026-11-27T03:00:00.000Z']);
    timer.stop();
  });
});
