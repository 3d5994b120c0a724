/**
 * Optimistic concurrency: read, compute, write on a condition that the read is still current; a
 * lost race reads again. The read-modify-writes of the routes' changes (payors, methods, groups,
 * payments, series, reversals and their background start, webhook endpoints) and a scheduled
 * retry's record go through this one loop, so all of them give up the same way: a 503 the client
 * may retry. (A few processing steps still count their own attempts and give up their own way:
 * the group claims, a payment's first answer, a retry round's record, a series' occurrences.)
 */
import { withBackoff, type BackoffDelays } from './backoff';
import { isConflict } from './ddb';
import { ServiceUnavailableError } from './errors';

/**
 * Attempts before a request gives up: each round of racing writers has one winner, so this lets
 * ten callers at once on one resource all finish (the pauses between attempts spread them out).
 */
export const MAX_ATTEMPTS = 10;

interface RetryOptions {
  attempts?: number;
  /** What changed under us, as the 503 names it ("this resource", "this payor"). */
  resource?: string;
}

/** Payor and saved-method changes: the 503 names the payor. */
export const PAYOR: RetryOptions = { resource: 'this payor' };

export const tooMuchContention = (resource = 'this resource'): ServiceUnavailableError =>
  new ServiceUnavailableError(`too many concurrent changes to ${resource}; retry the request`);

/**
 * The pauses between attempts after a lost race: short (the next read usually wins), growing, and
 * fully jittered so that racers spread out; ten attempts wait about 0.15 s in all at most.
 */
const PAUSES: BackoffDelays = { firstMs: 5, factor: 2, maxMs: 40, jitter: 'full' };

/** What an attempt that lost its race throws inside the loop (never outside it). */
const LOST_RACE = new Error('lost race');

/**
 * Runs `attempt` until it returns a value; `undefined` means the race was lost and the attempt
 * is repeated. A write conflict (another writer's transaction held the item, which DynamoDB
 * answers without looking at conditions) is a lost race too. Both are repeated through the one
 * retry loop (backoff.ts) after a short jittered pause. Throws the 503 of `tooMuchContention` when
 * the attempts are exhausted (a last conflict propagates, and the HTTP layer answers it 503 as
 * every transient error); any other error at once.
 */
export async function withOptimisticRetry<T>(
  attempt: () => Promise<T | undefined>,
  { attempts = MAX_ATTEMPTS, resource }: RetryOptions = {},
): Promise<T> {
  try {
    return await withBackoff(
      async () => {
        const result = await attempt();
        if (result === undefined) throw LOST_RACE;
        return result;
      },
      { ...PAUSES, attempts, retryable: (error) => error === LOST_RACE || isConflict(error) },
    );
  } catch (error) {
    throw error === LOST_RACE ? tooMuchContention(resource) : error;
  }
}
