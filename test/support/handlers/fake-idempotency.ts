/**
 * Replaces the idempotency store with records in memory (the Dynamo store's rules: lease, hash,
 * replay) for every module loaded after this one. Import it before any handler (the test
 * transform does not hoist `jest.mock`).
 */
import type {
  Claim,
  IdempotencyRef,
  IdempotencyStore,
  RequestHashes,
  StoredResponse,
} from '#store/idempotency';

class FakeIdempotencyStore implements IdempotencyStore {
  readonly records = new Map<
    string,
    { hash: string; resourceId: string; leaseUntil: number; response?: StoredResponse }
  >();
  async claim(ref: IdempotencyRef, request: RequestHashes, newId: string, now: Date): Promise<Claim> {
    const hash = request.keyed;
    const id = `${ref.merchantId}|${ref.scope}|${ref.key}`;
    const record = this.records.get(id);
    if (!record) {
      this.records.set(id, { hash, resourceId: newId, leaseUntil: now.getTime() + 30_000 });
      return { kind: 'new', resourceId: newId };
    }
    if (record.hash !== hash) return { kind: 'mismatch' };
    if (record.response) return { kind: 'replay', response: record.response };
    if (record.leaseUntil > now.getTime()) return { kind: 'in-progress', leaseUntil: record.leaseUntil };
    record.leaseUntil = now.getTime() + 30_000;
    return { kind: 'resume', resourceId: record.resourceId };
  }
  async complete(ref: IdempotencyRef, response: StoredResponse) {
    this.records.get(`${ref.merchantId}|${ref.scope}|${ref.key}`)!.response = structuredClone(response);
  }
  async release(ref: IdempotencyRef) {
    this.records.delete(`${ref.merchantId}|${ref.scope}|${ref.key}`);
  }
  async endLease(ref: IdempotencyRef) {
    const record = this.records.get(`${ref.merchantId}|${ref.scope}|${ref.key}`);
    if (record && !record.response) record.leaseUntil = 0;
  }
}
export const idempotency = new FakeIdempotencyStore();
jest.mock('#store/idempotency', () => ({
  ...jest.requireActual<Record<string, unknown>>('#store/idempotency'),
  idempotencyStore: () => idempotency,
}));
