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
import type { PaymentProcessor } from './processor';
import type { ConnectedAccounts } from './stripe/accounts';
import { SandboxProcessor } from './sandbox';
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
 * A processor whose module is loaded on its first call (its package is large: Stripe's), and
 * loaded again on the next call when loading failed (a secret that could not be read yet).
 */
function loadedOnUse(
  load: () => Promise<PaymentProcessor>,
  settlementTime: (at: string) => string,
  hasTestClock: boolean,
  voidsBankDebits: boolean,
): PaymentProcessor {
  let loading: Promise<PaymentProcessor> | undefined;
  const ready = (): Promise<PaymentProcessor> =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  return {
    voidsBankDebits,
    tokenize: async (r) => (await ready()).tokenize(r),
    sale: async (r) => (await ready()).sale(r),
    void: async (r) => (await ready()).void(r),
    refund: async (r) => (await ready()).refund(r),
    reverseUnanswered: async (r) => (await ready()).reverseUnanswered(r),
    settlementTime,
    listActivity: async (since, until) => (await ready()).listActivity(since, until),
    accountUpdates: async (since, until) => (await ready()).accountUpdates(since, until),
    readWebhook: async (r) => {
      const processor = await ready();
      if (!processor.readWebhook) return { verified: false, why: 'the processor sends no webhooks' };
      return processor.readWebhook(r);
    },
    // Every adapter loaded on use lists its notices (Stripe's events); none brings them forward.
    listNotices: async (r) => {
      const processor = await ready();
      if (!processor.listNotices) throw new Error('the processor lists no notices');
      return processor.listNotices(r);
    },
    ...(hasTestClock && {
      settleNow: async (r: Parameters<NonNullable<PaymentProcessor['settleNow']>>[0]) =>
        (await ready()).settleNow!(r),
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
          false,
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
