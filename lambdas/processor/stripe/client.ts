/**
 * The Stripe client the adapter talks through: the official `stripe` package, on the API version
 * it is typed for, pointed at Stripe or (local runtime, tests) at the stand-in.
 */
import Stripe from 'stripe';

/**
 * A call's bound. A card authorization at Stripe usually answers in one to two seconds, but can
 * take many when the issuer is slow; Stripe advises long client timeouts. 20 s covers nearly all
 * of them; a call past it is the processor not answering (ProcessorUnavailableError).
 */
const STRIPE_TIMEOUT_MS = 20_000;

interface StripeClientOptions {
  secretKey: string;
  /** Where the API is: absent for Stripe itself; the stand-in's address in the local runtime and tests. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
  /** @default STRIPE_TIMEOUT_MS */
  timeoutMs?: number;
}

export function stripeClient(options: StripeClientOptions): Stripe {
  return new Stripe(options.secretKey, {
    // No retries inside the client: one call is one request, bounded by the timeout, and an
    // unanswered call surfaces at once as ProcessorUnavailableError, for the service's own retry
    // path (same idempotency key, backoff, the sweeper) to decide what comes next.
    maxNetworkRetries: 0,
    timeout: options.timeoutMs ?? STRIPE_TIMEOUT_MS,
    // No latency reports to Stripe about earlier requests.
    telemetry: false,
    appInfo: { name: 'scheduled-payments-service' },
    ...(options.api !== undefined && {
      host: options.api.host,
      port: options.api.port,
      protocol: options.api.protocol,
    }),
  });
}
