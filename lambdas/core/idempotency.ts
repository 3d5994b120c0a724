/**
 * Request idempotency (docs/decisions.md "Idempotency keys", "Idempotency-Key on every POST"): the
 * same key with the same request returns the first response without doing the work again; with
 * another request, 422 (the `Idempotency-Key` header) or 409 (a key given only in the body, as
 * documented before the header existed); while the first is still running, 409 with `Retry-After`
 * (also once its lease ran out while the create it started may still be writing: CreateInProgressError).
 * The route builder (shared/http.ts) runs every POST that declares `idempotency` through here.
 */
import { createHash } from 'node:crypto';
import type { KeySource } from '#shared/http';
import { ConflictError, ServiceError, UnprocessableEntityError } from '#shared/errors';
import { requestDigest } from '#shared/keyed-hash';
import {
  idempotencyStore,
  type IdempotencyRef,
  type RequestHashes,
  type StoredResponse,
} from '#store/idempotency';
import { CreateInProgressError } from '#store/write-ahead';

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

/**
 * The hash a request is kept by with its key: keyed (shared/keyed-hash.ts `requestDigest`), so
 * that a record of a request that carried a card or account number holds nothing that could be
 * searched back to the number.
 */
export const requestHash = (body: unknown): Promise<string> => requestDigest(canonicalJson(body));

/**
 * The plain SHA-256 (hex) that records made before request hashes were keyed hold: such a record
 * is still matched by it until its TTL removes it (a retry that missed its replay could charge
 * twice). It is computed only when such a record is found, and never written.
 */
export const unkeyedRequestHash = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body)).digest('hex');

/** Both hashes of a request, for the store to match a record by whichever it holds. */
async function hashesOf(body: unknown): Promise<RequestHashes> {
  return { keyed: await requestHash(body), unkeyed: () => unkeyedRequestHash(body) };
}

/** The key as the request named it: the header's name, or the body field's. */
const keyName = (source: KeySource): string => (source === 'header' ? 'Idempotency-Key' : 'idempotencyKey');

/** 409 for a key whose first request is still running; `Retry-After` says when its lease ends. */
class IdempotencyInProgressError extends ConflictError {
  constructor(key: string, source: KeySource, retryAfterSeconds: number) {
    super(`a request with ${keyName(source)} ${key} is still in progress; retry shortly`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** The 409 of a key whose request is still running until `until` (ms since the epoch). */
const inProgress = (ref: IdempotencyRef, source: KeySource, until: number, now: Date) =>
  new IdempotencyInProgressError(ref.key, source, Math.max(1, Math.ceil((until - now.getTime()) / 1000)));

/** The key was first used with another request: 422 for the header (Stripe's rule), 409 for the body field. */
function mismatch(key: string, source: KeySource): ServiceError {
  const message = `${keyName(source)} ${key} was already used with a different request`;
  return source === 'header' ? new UnprocessableEntityError(message) : new ConflictError(message);
}

/**
 * Runs `work` once per key. `work` gets the id of the resource to create: new on the first call,
 * the same one when a retry resumes a request that crashed half-way (its lease ran out; then
 * `resumed` is true). A replay answers the stored response with `replayed: true`.
 */
export async function idempotent(
  ref: IdempotencyRef | undefined,
  request: unknown,
  newResourceId: string,
  now: Date,
  work: (resourceId: string, resumed: boolean) => Promise<StoredResponse>,
  source: KeySource = 'body',
): Promise<StoredResponse & { replayed?: true }> {
  if (!ref) return work(newResourceId, false);
  const store = idempotencyStore();
  const claim = await store.claim(ref, await hashesOf(request), newResourceId, now);
  switch (claim.kind) {
    case 'mismatch':
      throw mismatch(ref.key, source);
    case 'in-progress':
      throw inProgress(ref, source, claim.leaseUntil, now);
    case 'replay':
      return { ...claim.response, replayed: true };
    case 'new':
    case 'resume': {
      let response: StoredResponse;
      try {
        response = await work(claim.resourceId, claim.kind === 'resume');
      } catch (error) {
        // A resumed create whose first attempt may still be writing (write-ahead.ts): still in
        // progress. The claim stays, so that a later retry answers or resumes that create.
        if (error instanceof CreateInProgressError) throw inProgress(ref, source, error.leaseUntil, now);
        // A refused request did nothing: free the key. A resumed one's first attempt may have
        // (a group create answered 400 for a group grown past an answer): the key stays the
        // request's, the next retry resuming it at once. Anything else keeps the claim, so that
        // a retry resumes the same resource once the lease runs out.
        if (error instanceof ServiceError && error.status < 500) {
          if (claim.kind === 'resume') await store.endLease(ref);
          else await store.release(ref);
        }
        throw error;
      }
      await store.complete(ref, response);
      return response;
    }
  }
}
