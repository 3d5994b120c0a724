/** The one bounded backoff (lambdas/shared/backoff.ts): its waits, and the retry loop's bounds. */
import { backoffDelay, withBackoff } from '#shared/backoff';

describe('backoffDelay', () => {
  it('grows by the factor from the first wait, up to the cap', () => {
    const delays = { firstMs: 20, maxMs: 500 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n, delays))).toEqual([
      20, 40, 80, 160, 320, 500, 500,
    ]);
    expect([1, 2, 3].map((n) => backoffDelay(n, { firstMs: 400, factor: 4 }))).toEqual([400, 1600, 6400]);
  });

  it('with half jitter, draws between half of the wait and all of it', () => {
    const delays = { firstMs: 1000, jitter: 'half' as const };
    expect(backoffDelay(3, delays, () => 0)).toBe(2000);
    expect(backoffDelay(3, delays, () => 0.5)).toBe(3000);
    expect(backoffDelay(3, delays, () => 1)).toBe(4000);
  });

  it('with full jitter, draws between none of the wait and all of it', () => {
    const delays = { firstMs: 1000, jitter: 'full' as const };
    expect(backoffDelay(3, delays, () => 0)).toBe(0);
    expect(backoffDelay(3, delays, () => 0.5)).toBe(2000);
    expect(backoffDelay(3, delays, () => 1)).toBe(4000);
  });
});

describe('withBackoff', () => {
  const failing = (failures: number, error: unknown = new Error('busy')) => {
    let calls = 0;
    const fn = jest.fn(async (_failures: number) => {
      if (calls++ < failures) throw error;
      return 'done';
    });
    return fn;
  };

  it('tries again after each failure until the call succeeds', async () => {
    const fn = failing(2);
    const retries: number[] = [];
    await expect(
      withBackoff(fn, { attempts: 3, firstMs: 1, onRetry: (_e, failure) => retries.push(failure) }),
    ).resolves.toBe('done');
    expect(fn).toHaveBeenCalledTimes(3);
    expect(fn.mock.calls.map(([failures]) => failures)).toEqual([0, 1, 2]);
    expect(retries).toEqual([1, 2]);
  });

  it('throws the last failure once the attempts are spent', async () => {
    const fn = failing(5);
    await expect(withBackoff(fn, { attempts: 3, firstMs: 1 })).rejects.toThrow('busy');
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('throws at once a failure that is not retryable', async () => {
    const fn = failing(5, new TypeError('wrong'));
    await expect(
      withBackoff(fn, { attempts: 3, firstMs: 1, retryable: (e) => !(e instanceof TypeError) }),
    ).rejects.toThrow('wrong');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('starts no try after the deadline, however many attempts are left', async () => {
    const fn = failing(5);
    await expect(
      withBackoff(fn, { attempts: Infinity, firstMs: 1, deadline: Date.now() - 1 }),
    ).rejects.toThrow('busy');
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
