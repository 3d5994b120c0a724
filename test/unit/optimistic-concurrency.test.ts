/**
 * Optimistic concurrency's loop (lambdas/shared/optimistic-concurrency.ts) on the test clock: what
 * it repeats (a lost race, a write conflict), when it gives up (the 503 after its attempts) and what
 * it never repeats (any other error), and that it pauses through the one backoff between tries.
 */
import { useClock } from '#shared/clock';
import { ServiceUnavailableError } from '#shared/errors';
import { MAX_ATTEMPTS, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { useTestClock, type TestClock } from '#support/clock';

/** What DynamoDB answers when another writer's transaction held the item. */
const conflict = (): Error =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
  });

/** An attempt that plays `script` in order: undefined (a lost race), an error to throw, or a value. */
function scripted(script: (string | undefined | Error)[]) {
  let i = 0;
  return jest.fn(async (): Promise<string | undefined> => {
    const step = script[i++];
    if (step instanceof Error) throw step;
    return step;
  });
}

let testClock: TestClock;
beforeEach(() => {
  testClock = useTestClock('2026-03-02T10:00:00Z');
});
afterEach(() => useClock(undefined));

describe('withOptimisticRetry', () => {
  it('reads again after a lost race and returns the attempt that wins', async () => {
    const attempt = scripted([undefined, undefined, 'written']);
    await expect(withOptimisticRetry(attempt)).resolves.toBe('written');
    expect(attempt).toHaveBeenCalledTimes(3);
    // One pause before each repeat, short, from the one backoff (its full jitter: 0 to 5, 0 to 10 ms).
    expect(testClock.slept).toHaveLength(2);
    expect(testClock.slept[0]).toBeLessThanOrEqual(5);
    expect(testClock.slept[1]).toBeLessThanOrEqual(10);
  });

  it('repeats an attempt whose write met a conflict', async () => {
    const attempt = scripted([conflict(), 'written']);
    await expect(withOptimisticRetry(attempt)).resolves.toBe('written');
    expect(attempt).toHaveBeenCalledTimes(2);
    expect(testClock.slept).toHaveLength(1);
  });

  it('gives up with the 503 naming the resource after its attempts, all races lost', async () => {
    const attempt = scripted(Array<undefined>(MAX_ATTEMPTS + 5).fill(undefined));
    const given = withOptimisticRetry(attempt, { resource: 'this payor' });
    await expect(given).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(given).rejects.toMatchObject({
      status: 503,
      message: 'too many concurrent changes to this payor; retry the request',
    });
    expect(attempt).toHaveBeenCalledTimes(MAX_ATTEMPTS);
    // No pause after the last attempt; every pause within the backoff's 40 ms cap.
    expect(testClock.slept).toHaveLength(MAX_ATTEMPTS - 1);
    expect(Math.max(...testClock.slept)).toBeLessThanOrEqual(40);
  });

  it('counts the attempts it is given', async () => {
    const attempt = scripted([undefined, undefined, undefined, 'too late']);
    await expect(withOptimisticRetry(attempt, { attempts: 3 })).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('lets a conflict on the last attempt through (answered 503 as every transient error)', async () => {
    const last = conflict();
    const attempt = scripted([undefined, last]);
    await expect(withOptimisticRetry(attempt, { attempts: 2 })).rejects.toBe(last);
    expect(attempt).toHaveBeenCalledTimes(2);
  });

  it('rethrows any other error at once, without a pause or another attempt', async () => {
    const failure = new Error('condition check failed on another item');
    const attempt = scripted([undefined, failure, 'never reached']);
    await expect(withOptimisticRetry(attempt)).rejects.toBe(failure);
    expect(attempt).toHaveBeenCalledTimes(2);
    expect(testClock.slept).toHaveLength(1);
  });
});
