/**
 * Faults on demand, for the tests of what the adapter makes of a Stripe that misbehaves. A fault
 * applies to the next matching request(s). `before` faults answer instead of Stripe (nothing is
 * done); `after` faults spoil the answer of a request Stripe did carry out (and kept under its
 * idempotency key): the connection drops, the body stops half-way, or it is not what Stripe sends.
 */
import type { StripeErrorBody } from './errors';

export type StandInFault =
  /** 429: too many requests (`Stripe-Should-Retry` when given). */
  | { before: 'rate-limit'; shouldRetry?: boolean }
  /**
   * A 5xx. `kept`: the failure is kept under the request's idempotency key and replayed, as
   * Stripe does when it answers `Stripe-Should-Retry: false`.
   */
  | { before: 'server-error'; status?: number; shouldRetry?: boolean; kept?: boolean }
  /** Any error answer (one whose message quotes the request, say). */
  | { before: 'error'; status: number; error: StripeErrorBody }
  | { after: 'lost' }
  | { after: 'hang-mid-body' }
  | { after: 'malformed-json' }
  /** The answer object with fields set (an unknown enum value) or removed (a missing field). */
  | { after: 'altered'; set?: Record<string, unknown>; unset?: string[] };

interface FaultMatch {
  method?: string;
  /** A path prefix, as `/v1/payment_intents`. */
  path?: string;
}

export class Faults {
  private readonly queued: { fault: StandInFault; match: FaultMatch; times: number }[] = [];

  /** `fault` for the next `times` requests matching `match` (default: any request, once). */
  add(fault: StandInFault, match: FaultMatch = {}, times = 1): void {
    this.queued.push({ fault, match, times });
  }

  clear(): void {
    this.queued.length = 0;
  }

  take(method: string, path: string): StandInFault | undefined {
    const at = this.queued.findIndex(
      ({ match }) =>
        (match.method === undefined || match.method === method) &&
        (match.path === undefined || path.startsWith(match.path)),
    );
    if (at < 0) return undefined;
    const entry = this.queued[at]!;
    if (--entry.times <= 0) this.queued.splice(at, 1);
    return entry.fault;
  }
}
