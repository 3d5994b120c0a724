/**
 * Optimistic concurrency: read, compute, write on a condition that the read is still current; a
 * lost race reads again. Every read-modify-write of the service goes through this one loop, so
 * all of them give up the same way: a 503 the client may retry.
 */
import { ServiceUnavailableError } from './errors';

/** Attempts before a request gives up: enough for ordinary bursts on one resource. */
export const MAX_ATTEMPTS = 5;

export interface RetryOptions {
  attempts?: number;
  /** What changed under us, as the 503 names it ("this resource", "this payor"). */
  resource?: string;
}

/** Payor and saved-method changes: the 503 names the payor. */
export const PAYOR: RetryOptions = { resource: 'this payor' };

export const tooMuchContention = (resource = 'this resource'): ServiceUnavailableError =>
  new ServiceUnavailableError(`too many concurrent changes to ${resource}; retry the request`);

/**
 * Runs `attempt` until it returns a value; `undefined` means the race was lost and the attempt
 * is repeated. Throws the 503 of `tooMuchContention` when the attempts are exhausted.
 */
export async function withOptimisticRetry<T>(
  attempt: () => Promise<T | undefined>,
  { attempts = MAX_ATTEMPTS, resource }: RetryOptions = {},
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw tooMuchContention(resource);
}
