/**
 * Request idempotency for money-moving requests (`idempotencyKey`): the same key with the same
 * body returns the first response without doing the work again; with a different body, 409.
 */
import { createHash } from 'node:crypto';
import { ConflictError, ServiceError } from '#shared/errors';
import { idempotencyStore, type IdempotencyRef, type StoredResponse } from '#store/idempotency';

/** JSON with object keys sorted, so that key order does not change a request's hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const requestHash = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body)).digest('hex');

/**
 * Runs `work` once per key. `work` gets the id of the resource to create: new on the first call,
 * the same one when a retry resumes a request that crashed half-way (its lease ran out; then
 * `resumed` is true).
 */
export async function idempotent(
  ref: IdempotencyRef | undefined,
  body: unknown,
  newResourceId: string,
  now: Date,
  work: (resourceId: string, resumed: boolean) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (!ref) return work(newResourceId, false);
  const store = idempotencyStore();
  const claim = await store.claim(ref, requestHash(body), newResourceId, now);
  switch (claim.kind) {
    case 'mismatch':
      throw new ConflictError(`idempotencyKey ${ref.key} was already used with a different request`);
    case 'in-progress':
      throw new ConflictError(`a request with idempotencyKey ${ref.key} is still in progress; retry shortly`);
    case 'replay':
      return claim.response;
    case 'new':
    case 'resume': {
      let response: StoredResponse;
      try {
        response = await work(claim.resourceId, claim.kind === 'resume');
      } catch (error) {
        // A refused request did nothing: free the key. Anything else keeps the claim, so that a
        // retry resumes the same resource once the lease runs out.
        if (error instanceof ServiceError && error.status < 500) await store.release(ref);
        throw error;
      }
      await store.complete(ref, response);
      return response;
    }
  }
}
