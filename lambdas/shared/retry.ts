/**
 * Optimistic concurrency: read, compute, write on a condition that the read is still current; a
 * lost race reads again. Every read-modify-write of the service goes through this one loop, so
 * all of them give up the same way: a 503 the client may retry.
 */
import { sleep } from './concurrency';
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

const tooMuchContention = (resource = 'this resource'): ServiceUnavailableError =>
  new ServiceUnavailableError(`too many concurrent changes to ${resource}; retry the request`);

/**
 * The pause before attempt `i + 1` after a lost race: none after the first loss (the next read
 * usually wins), then a few milliseconds more each time, jittered so that racers spread out.
 */
const pauseAfterLoss = (i: number): number => Math.round(Math.random() * 10 * i);

/**
 * Runs `attempt` until it returns a value; `undefined` means the race was lost and the attempt
 * is repeated. A write conflict (another writer's transaction held the item, which DynamoDB
 * answers without looking at conditions) is a lost race too, repeated after a short jittered
 * pause. Throws the 503 of `tooMuchContention` when the attempts are exhausted (a last conflict
 * propagates, and the HTTP layer answers it 503 as every transient error).
 */
export async function withOptimisticRetry<T>(
  attempt: () => Promise<T | undefined>,
  { attempts = MAX_ATTEMPTS, resource }: RetryOptions = {},
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(pauseAfterLoss(i - 1));
    let result: T | undefined;
    try {
      result = await attempt();
    } catch (error) {
      if (!isConflict(error) || i === attempts - 1) throw error;
      continue;
    }
    if (result !== undefined) return result;
  }
  throw tooMuchContention(resource);
}
