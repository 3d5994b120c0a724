/**
 * The one place that gives the payment processor adapter its configuration in the cloud: its
 * variables and, for a real acquirer, its secret grants. Every function that may call the
 * processor is bound here, and only those: the API handlers and Step Functions tasks flagged
 * `callsProcessor` in the contract (contract/routes, contract/processing.ts), the sweeper and the
 * reconciliation. A new adapter adds its variables and grants in `processorSettings` only.
 */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Stage } from '../../contract/stage';

interface ProcessorSettings {
  /** Environment variables of the adapter (PROCESSOR names it; lambdas/processor/index.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /** Grants the adapter needs (secrets, keys); the sandbox needs none beyond the service table. */
  readonly grant: (fn: lambda.IFunction) => void;
}

/** Context key of dev's sandbox settlement period (lib/cdk/app.ts validates it). */
export const SETTLEMENT_PERIOD_CONTEXT = 'settlementPeriodSeconds';

/**
 * The processor of a stage. Every stage uses the sandbox until an acquirer adapter exists. Its
 * ledger lives in the service table, which each bound function has already. Prod settles on the
 * default cut-offs (hourly at :30); dev takes `settlementPeriodSeconds` from the stack's context
 * so that testers see refunds and receipts within minutes, cut-offs half a period past each period.
 */
function processorSettings(stage: Stage, periodSeconds: number | undefined): ProcessorSettings {
  const settlement: Record<string, string> =
    stage !== 'prod' && periodSeconds !== undefined
      ? {
          SETTLEMENT_PERIOD_SECONDS: String(periodSeconds),
          SETTLEMENT_OFFSET_SECONDS: String(Math.floor(periodSeconds / 2)),
        }
      : {};
  return { environment: { PROCESSOR: 'sandbox', ...settlement }, grant: () => undefined };
}

/** Give a function that may charge, refund or tokenize the processor's settings. */
export function bindProcessor(fn: lambda.Function, stage: Stage): void {
  const period: unknown = fn.node.tryGetContext(SETTLEMENT_PERIOD_CONTEXT);
  const settings = processorSettings(stage, typeof period === 'number' ? period : undefined);
  for (const [name, value] of Object.entries(settings.environment)) fn.addEnvironment(name, value);
  settings.grant(fn);
}
