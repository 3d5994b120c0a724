/**
 * The one place that gives the payment processor adapter its configuration in the cloud: its
 * variables and, for a real acquirer, its secret grants. Every function that may call the
 * processor (the API's writing handlers and the processing tasks) is bound here, so a new
 * adapter adds its variables and grants in `processorSettings` only.
 */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Stage } from '../../contract/stage';

interface ProcessorSettings {
  /** Environment variables of the adapter (PROCESSOR names it; lambdas/processor/index.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /** Grants the adapter needs (secrets, keys); the sandbox needs none beyond the service table. */
  readonly grant: (fn: lambda.IFunction) => void;
}

/** The processor of a stage. Every stage uses the sandbox until an acquirer adapter exists. */
function processorSettings(_stage: Stage): ProcessorSettings {
  // The sandbox keeps its ledger in the service table, which each bound function has already,
  // and settles on the default cut-offs (SETTLEMENT_PERIOD_SECONDS, SETTLEMENT_OFFSET_SECONDS).
  return { environment: { PROCESSOR: 'sandbox' }, grant: () => undefined };
}

/** Give a function that may charge, refund or tokenize the processor's settings. */
export function bindProcessor(fn: lambda.Function, stage: Stage): void {
  const settings = processorSettings(stage);
  for (const [name, value] of Object.entries(settings.environment)) fn.addEnvironment(name, value);
  settings.grant(fn);
}
