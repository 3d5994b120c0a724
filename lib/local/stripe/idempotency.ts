/**
 * Idempotency as Stripe keeps it: a POST's answer is kept under its `Idempotency-Key` (per
 * account) with the request's parameters; the same key and parameters get the same answer back
 * (`Idempotent-Replayed: true`), other parameters an `idempotency_error`. Keys are forgotten 24
 * hours after their first use, by the stand-in's clock.
 */
const KEY_LIFETIME_MS = 24 * 3600_000;

interface KeptAnswer {
  status: number;
  body: string;
  /** Headers replayed with it (`Stripe-Should-Retry` of a kept failure). */
  headers?: Record<string, string>;
}

interface Entry extends KeptAnswer {
  request: string;
  at: number;
}

/** The request as compared: method, path and parameters with their keys in order. */
export function requestFingerprint(method: string, path: string, params: unknown): string {
  const canonical = (value: unknown): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
        )
      : Array.isArray(value)
        ? value.map(canonical)
        : value;
  return JSON.stringify([method, path, canonical(params)]);
}

export class IdempotencyKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => number) {}

  private prune(): void {
    const oldest = this.clock() - KEY_LIFETIME_MS;
    for (const [key, entry] of this.entries) if (entry.at <= oldest) this.entries.delete(key);
  }

  /** The kept answer of the key, `conflict` when it was used with another request, or undefined. */
  find(scope: string, key: string, request: string): KeptAnswer | 'conflict' | undefined {
    this.prune();
    const entry = this.entries.get(`${scope} ${key}`);
    if (!entry) return undefined;
    return entry.request === request ? entry : 'conflict';
  }

  keep(scope: string, key: string, request: string, answer: KeptAnswer): void {
    this.entries.set(`${scope} ${key}`, { ...answer, request, at: this.clock() });
  }
}
