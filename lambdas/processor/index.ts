/** The configured processor: PROCESSOR=sandbox (the only adapter so far). */
import { config, optionalNumber } from '#shared/config';
import { ddb } from '#shared/ddb';
import type { PaymentProcessor } from './processor';
import { SandboxProcessor } from './sandbox';

let processor: PaymentProcessor | undefined;

export function paymentProcessor(): PaymentProcessor {
  if (processor) return processor;
  const kind = process.env.PROCESSOR ?? 'sandbox';
  if (kind !== 'sandbox') throw new Error(`PROCESSOR=${kind} is not an available adapter (sandbox)`);
  processor = new SandboxProcessor(ddb(), config().tableName, {
    periodSeconds: optionalNumber('SETTLEMENT_PERIOD_SECONDS', 3600),
    offsetSeconds: optionalNumber('SETTLEMENT_OFFSET_SECONDS', 1800),
  });
  return processor;
}

/** Test hook: use this processor instead of the configured one. */
export const useProcessor = (p: PaymentProcessor | undefined): void => {
  processor = p;
};
