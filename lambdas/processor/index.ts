/**
 * The configured processor adapter, chosen by PROCESSOR from a registry. A real acquirer adds its
 * factory here (and its variables and secret grants in lib/cdk/processor.ts); an unknown name
 * fails the cold start, naming the available adapters.
 */
import { config, type FunctionConfig } from '#shared/config';
import { ddb } from '#shared/ddb';
import type { PaymentProcessor } from './processor';
import { SandboxProcessor } from './sandbox';
import { PROCESSOR_TIMEOUT_MS, withProcessorTimeout } from './timeout';

interface Adapter {
  create: (config: FunctionConfig) => PaymentProcessor;
  /** The bound of each call (timeout.ts): what a call of this processor may take at worst. */
  timeoutMs: number;
}

const adapters: Readonly<Record<string, Adapter>> = {
  sandbox: {
    create: (c) => new SandboxProcessor(ddb(), c.tableName, c.settlement, c.sandboxLatencyMs),
    timeoutMs: PROCESSOR_TIMEOUT_MS,
  },
};

const adapterOf = (name: string): Adapter => {
  const adapter = adapters[name];
  if (!adapter)
    throw new Error(`PROCESSOR=${name} is not an available adapter (${Object.keys(adapters).join(', ')})`);
  return adapter;
};

// Checked at load, so that a misconfigured function fails its cold start rather than a charge.
adapterOf(config().processor);

let processor: PaymentProcessor | undefined;

export function paymentProcessor(): PaymentProcessor {
  // Every call is bounded by its adapter's own timeout, below the function's (timeout.ts).
  const adapter = adapterOf(config().processor);
  processor ??= withProcessorTimeout(adapter.create(config()), adapter.timeoutMs);
  return processor;
}

/** Test hook (and the local runtime's fault injection): use this processor instead of the configured one. */
export const useProcessor = (p: PaymentProcessor | undefined): void => {
  processor = p;
};
