/**
 * The configured processor adapter, chosen by PROCESSOR from a registry. A real acquirer adds its
 * factory here (and its variables and secret grants in lib/cdk/processor.ts); an unknown name
 * fails the cold start, naming the available adapters.
 */
import { config, type FunctionConfig } from '#shared/config';
import { ddb } from '#shared/ddb';
import type { PaymentProcessor } from './processor';
import { SandboxProcessor } from './sandbox';
import { withProcessorTimeout } from './timeout';

const adapters: Readonly<Record<string, (config: FunctionConfig) => PaymentProcessor>> = {
  sandbox: (c) => new SandboxProcessor(ddb(), c.tableName, c.settlement, c.sandboxLatencyMs),
};

const adapterOf = (name: string): ((config: FunctionConfig) => PaymentProcessor) => {
  const factory = adapters[name];
  if (!factory)
    throw new Error(`PROCESSOR=${name} is not an available adapter (${Object.keys(adapters).join(', ')})`);
  return factory;
};

// Checked at load, so that a misconfigured function fails its cold start rather than a charge.
adapterOf(config().processor);

let processor: PaymentProcessor | undefined;

export function paymentProcessor(): PaymentProcessor {
  // Every adapter's calls are bounded well below the function's timeout (timeout.ts).
  processor ??= withProcessorTimeout(adapterOf(config().processor)(config()));
  return processor;
}

/** Test hook (and the local runtime's fault injection): use this processor instead of the configured one. */
export const useProcessor = (p: PaymentProcessor | undefined): void => {
  processor = p;
};
