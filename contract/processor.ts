/**
 * The payment processors a stage may run, and what each one's latency makes the functions and the
 * infrastructure agree on: the bound of one call, the timeouts of the functions that call it, how
 * much a synchronous request may reverse, and the processor's rate (docs/decisions.md "Each
 * processor's timings"). The adapters are in lambdas/processor/; a stage's processor is CDK
 * context (`devProcessor`, `prodProcessor`; lib/cdk/processor.ts); locally `PROCESSOR`.
 */

export const PROCESSORS = ['sandbox', 'stripe'] as const;
export type ProcessorName = (typeof PROCESSORS)[number];

export function parseProcessor(
  value: string | undefined,
  fallback: ProcessorName = 'sandbox',
): ProcessorName {
  const name = value ?? fallback;
  if (!(PROCESSORS as readonly string[]).includes(name))
    throw new Error(`processor must be one of ${PROCESSORS.join(', ')}, got "${name}"`);
  return name as ProcessorName;
}

interface ProcessorTiming {
  /** The bound of one call of the adapter, in ms (lambdas/processor/timeout.ts). */
  readonly callMs: number;
  /**
   * The timeout of the API functions that call the processor (a sale, a void, a refund, a
   * vaulting), in seconds: one call and the request's own reads and writes, under API Gateway's 29 s.
   */
  readonly apiTimeoutSeconds: number;
  /**
   * Whether an API sale the processor did not answer is reversed within the request (its timeout
   * reversal is a second call: two bounds must fit in the function's timeout) or by the sweeper,
   * from the sale's Declined record written ahead (docs/architecture.md "Claims and sweeps").
   */
  readonly reversesWithinRequest: boolean;
  /**
   * The timeout of the batch functions that charge or reverse (AuthorizeFirstBatch,
   * AuthorizeBatch, ReverseBatch), in seconds: their worst case at this processor's bound
   * (test/infra/timeouts.test.ts).
   */
  readonly batchTimeoutSeconds: number;
  /**
   * The longest one payment's reversal takes within a request (one call at the bound, and a few
   * DynamoDB reads and writes with their retries): the group's void-or-refund starts none later
   * than this (and a margin) before its timeout.
   */
  readonly reversalSeconds: number;
  /**
   * The most payments of a whole group a void-or-refund reverses within its request; a larger
   * group is reversed in the background. With a slow bound few reversals can start in time.
   */
  readonly voidOrRefundSyncLimit: number;
}

export const PROCESSOR_TIMING: Readonly<Record<ProcessorName, ProcessorTiming>> = {
  sandbox: {
    callMs: 3_000,
    apiTimeoutSeconds: 10,
    reversesWithinRequest: true,
    batchTimeoutSeconds: 120,
    reversalSeconds: 6,
    voidOrRefundSyncLimit: 1000,
  },
  stripe: {
    // A card authorization at Stripe can take many seconds when an issuer is slow; Stripe advises
    // long client timeouts (docs/decisions.md "Stripe: one request per call, 20 s").
    callMs: 20_000,
    // One call of 20 s and the request's writes, within API Gateway's 29 s; the timeout reversal,
    // a second call of up to 20 s, does not fit: the sweeper makes it.
    apiTimeoutSeconds: 27,
    reversesWithinRequest: false,
    // 250 payments, 16 at once, each up to 20 s: 16 rounds of 21 s, and a failing round (a charge
    // tried three times) after which no charge starts: about 420 s at worst.
    batchTimeoutSeconds: 600,
    reversalSeconds: 23,
    // 28 s less 23 s less a margin of 2 s: reversals may start for 3 s, about 100 at Stripe's
    // usual half second, 16 at once.
    voidOrRefundSyncLimit: 100,
  },
};

/**
 * The processor's rate a stage runs with (`PROCESSOR_RATE`, scheduled charges a second across all
 * groups; lambdas/core/processor-rate.ts) when the context gives none. The sandbox's is what an
 * acquirer agrees to; Stripe's is under its rate limits (docs/decisions.md "Stripe's rate limits
 * and the busiest slot"): each scheduled charge is one `POST /v1/payment_intents`, an endpoint
 * Stripe limits to 25 requests a second by default, and the API's sales share it.
 */
export const DEFAULT_PROCESSOR_RATE: Readonly<Record<ProcessorName | 'stripe-test', number>> = {
  sandbox: 1000,
  stripe: 20,
  // Test mode: 25 requests a second in all, endpoints included.
  'stripe-test': 10,
};

/** Stripe's mode of a stage: prod's key is a live-mode key, every other stage's a test-mode key. */
export const stripeModeOf = (stage: string): 'live' | 'test' => (stage === 'prod' ? 'live' : 'test');

/**
 * An API function's timeout (seconds) on a stage of `processor`: its own (contract/limits.ts
 * apiTimeoutSecondsOf), or, for a function whose route calls the processor, at least what one
 * call of that processor and the request's writes take.
 */
export const apiTimeoutWithProcessor = (
  seconds: number,
  callsProcessor: boolean,
  processor: ProcessorName,
): number => (callsProcessor ? Math.max(seconds, PROCESSOR_TIMING[processor].apiTimeoutSeconds) : seconds);
