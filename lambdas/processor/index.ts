/**
 * The configured processor adapter, chosen by PROCESSOR from a registry. A real acquirer adds its
 * factory here, its timings in contract/processor.ts, and its variables and secret grants in
 * lib/cdk/processor.ts; an unknown name fails the cold start, naming the available adapters.
 *
 * A deployed bundle carries only its stage's adapter: CDK's esbuild replaces
 * `process.env.PROCESSOR_BUNDLE` with the stage's processor (lib/cdk/service-function.ts), which
 * leaves the other adapters' branches, and the modules they load, out of the bundle. Unset (tests,
 * the local runtime), every adapter is there.
 */
import { PROCESSOR_TIMING, parseProcessor, type ProcessorName } from '#contract/processor';
import { config, type FunctionConfig } from '#shared/config';
import { ddb } from '#shared/ddb';
import { nextCutoff } from './cut-offs';
import { clock } from '#shared/clock';
import { ProcessorUnavailableError, type PaymentProcessor } from './processor';
import type { ConnectedAccounts } from './stripe/accounts';
import { SandboxProcessor } from './sandbox';
import { STRIPE_TRAITS } from './stripe/traits';
import { withProcessorTimeout } from './timeout';

/**
 * What the service hands an adapter from outside processor/ (the composition root,
 * lambdas/core/processor.ts): the merchants' accounts at a processor that keeps one per merchant,
 * as the merchant registry maps them (Stripe's connected accounts).
 */
export interface ProcessorPorts {
  merchantAccounts: (processor: ProcessorName) => ConnectedAccounts;
}

interface Adapter {
  create: (config: FunctionConfig, ports: ProcessorPorts) => PaymentProcessor;
}

/**
 * How long a loaded adapter is kept, at least, when the processor refuses its credentials: the
 * next call after a refusal loads it again (its secret read anew), at most once a minute per
 * instance, so that a key that stays refused costs one read of the secret a minute, not one a call.
 */
export const RELOAD_AFTER_REFUSAL_MS = 60_000;

/**
 * A processor whose module is loaded on its first call (its package is large: Stripe's), and
 * loaded again on the next call when loading failed (a secret that could not be read yet) or when
 * the processor refused the credentials it was loaded with (a key an operator rolled: every warm
 * instance takes the new one within a minute, without a deploy). The refused call itself stays
 * "processor unavailable" (the processor did nothing): its caller retries it with the same key.
 */
function loadedOnUse(
  load: () => Promise<PaymentProcessor>,
  settlementTime: (at: string) => string,
  hasTestClock: boolean,
  traits: Pick<PaymentProcessor, 'voidsBankDebits' | 'voidIsRefund'>,
): PaymentProcessor {
  let loading: Promise<PaymentProcessor> | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;
  let refused = false;
  const ready = (): Promise<PaymentProcessor> => {
    if (loading && !(refused && clock.nowMs() - loadedAt >= RELOAD_AFTER_REFUSAL_MS)) return loading;
    refused = false;
    loadedAt = clock.nowMs();
    const started = load().catch((error: unknown) => {
      if (loading === started) loading = undefined;
      throw error;
    });
    loading = started;
    return started;
  };
  /** `call` on the loaded processor; a refusal of its credentials has it loaded again. */
  const use = async <T>(call: (processor: PaymentProcessor) => Promise<T>): Promise<T> => {
    const used = ready();
    try {
      return await call(await used);
    } catch (error) {
      if (error instanceof ProcessorUnavailableError && error.credentialsRefused && loading === used)
        refused = true;
      throw error;
    }
  };
  return {
    ...traits,
    tokenize: (r) => use((p) => p.tokenize(r)),
    sale: (r) => use((p) => p.sale(r)),
    void: (r) => use((p) => p.void(r)),
    refund: (r) => use((p) => p.refund(r)),
    reverseUnanswered: (r) => use((p) => p.reverseUnanswered(r)),
    settlementTime,
    listActivity: (since, until) => use((p) => p.listActivity(since, until)),
    accountUpdates: (since, until) => use((p) => p.accountUpdates(since, until)),
    readWebhook: (r) =>
      use(async (p) => {
        if (!p.readWebhook) return { verified: false, why: 'the processor sends no webhooks' };
        return p.readWebhook(r);
      }),
    // Every adapter loaded on use lists its notices (Stripe's events); none brings them forward.
    listNotices: (r) =>
      use(async (p) => {
        if (!p.listNotices) throw new Error('the processor lists no notices');
        return p.listNotices(r);
      }),
    ...(hasTestClock && {
      settleNow: (r: Parameters<NonNullable<PaymentProcessor['settleNow']>>[0]) =>
        use((p) => p.settleNow!(r)),
    }),
  };
}

const adapters: Readonly<Partial<Record<ProcessorName, Adapter>>> = {
  ...((process.env.PROCESSOR_BUNDLE ?? 'sandbox') === 'sandbox' && {
    sandbox: {
      create: (c: FunctionConfig) =>
        new SandboxProcessor(ddb(), c.tableName, c.settlement, c.sandboxLatencyMs),
    },
  }),
  ...((process.env.PROCESSOR_BUNDLE ?? 'stripe') === 'stripe' && {
    stripe: {
      create: (c: FunctionConfig, ports: ProcessorPorts) =>
        loadedOnUse(
          async () => (await import('./stripe/adapter')).stripeProcessor(c, ports.merchantAccounts('stripe')),
          (at) => nextCutoff(at, c.settlement),
          // The test clock of a test-mode stage: the service's own cut-offs (stripe/stripe-processor.ts).
          c.stripeMode === 'test',
          STRIPE_TRAITS,
        ),
    },
  }),
};

const adapterOf = (name: string): Adapter => {
  const adapter = adapters[name as ProcessorName];
  if (!adapter)
    throw new Error(`PROCESSOR=${name} is not an available adapter (${Object.keys(adapters).join(', ')})`);
  return adapter;
};

// Checked at load, so that a misconfigured function fails its cold start rather than a charge.
adapterOf(config().processor);

/** The configured processor's timings (contract/processor.ts). */
export const processorTiming = () => PROCESSOR_TIMING[parseProcessor(config().processor)];

let processor: PaymentProcessor | undefined;

/**
 * The configured processor, made once with the service's ports (core/processor.ts gives them; the
 * rest of the service asks core/ for the processor, never this module directly).
 */
export function configuredProcessor(ports: ProcessorPorts): PaymentProcessor {
  // Every call is bounded by its adapter's own timeout, below the function's (timeout.ts).
  const adapter = adapterOf(config().processor);
  processor ??= withProcessorTimeout(adapter.create(config(), ports), processorTiming().callMs);
  return processor;
}

/** Test hook (and the local runtime's fault injection): use this processor instead of the configured one. */
export const useProcessor = (p: PaymentProcessor | undefined): void => {
  processor = p;
};
