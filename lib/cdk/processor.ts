/**
 * The one place that gives the payment processor adapter its configuration in the cloud: its
 * variables and, for a real acquirer, its secret grants. Every function that may call the
 * processor is bound here, and only those: the API handlers and Step Functions tasks flagged
 * `callsProcessor` in the contract (contract/routes, contract/processing.ts), the sweeper and the
 * reconciliation and the account updater. A new adapter adds its variables and grants in
 * `processorSettings` only.
 *
 * A stage's processor is its context (`devProcessor`, `prodProcessor`: `sandbox` or `stripe`;
 * lib/cdk/app.ts), set on the stage's stack before any function exists (PROCESSOR_CONTEXT), so
 * that every function's bundle carries that adapter alone (lib/cdk/service-function.ts) and every
 * timeout that depends on it follows (contract/processor.ts).
 */
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import {
  DEFAULT_PROCESSOR_RATE,
  parseProcessor,
  PROCESSOR_TIMING,
  stripeModeOf,
  type ProcessorName,
} from '../../contract/processor';
import type { Stage } from '../../contract/stage';

/** Context key of dev's sandbox settlement period (lib/cdk/app.ts validates it). */
export const SETTLEMENT_PERIOD_CONTEXT = 'settlementPeriodSeconds';
/** Context key of the stage's processor, set by its stack (lib/cdk/service-stack.ts). */
export const PROCESSOR_CONTEXT = 'serviceProcessor';
/** Context key of the stage's processor rate (`PROCESSOR_RATE`), when the context gives one. */
export const PROCESSOR_RATE_CONTEXT = 'serviceProcessorRate';

/** The processor of the stage `scope` belongs to (sandbox when no stage stack set one). */
export const processorOf = (scope: IConstruct): ProcessorName => {
  const value: unknown = scope.node.tryGetContext(PROCESSOR_CONTEXT);
  return parseProcessor(typeof value === 'string' ? value : undefined);
};

/** The physical name of a stage's Stripe secret key: fixed, so that operators know where to put it. */
const stripeSecretName = (stage: Stage): string => `scheduled-payments/${stage}/stripe-secret-key`;

/**
 * The Stripe secret key of a Stripe stage: one Secrets Manager secret, whose value the operator
 * puts (docs/operating.md "Going live with Stripe"); until then it holds a random string that no
 * mode accepts, and the processor is unavailable. Only the functions bound here may read it.
 */
export class StripeSecretKey extends Construct {
  static readonly ID = 'StripeSecretKey';
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: { readonly stage: Stage }) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      secretName: stripeSecretName(props.stage),
      description: `The Stripe secret (or restricted) key of ${props.stage}: a ${stripeModeOf(props.stage)}-mode key; put by the operator`,
      generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "Stripe's keys are rolled at Stripe (its Dashboard), which Secrets Manager cannot do; the operator puts the new key here (docs/operating.md).",
    });
  }
}

/** The stage stack above a (nested) stack's construct. */
function stageStackOf(scope: IConstruct): Stack {
  let stack = Stack.of(scope);
  while (stack.nestedStackParent !== undefined) stack = stack.nestedStackParent;
  return stack;
}

interface ProcessorSettings {
  /** Environment variables of the adapter (PROCESSOR names it; lambdas/processor/index.ts). */
  readonly environment: Readonly<Record<string, string>>;
  /** Grants the adapter needs (secrets, keys); the sandbox needs none beyond the service table. */
  readonly grant: (fn: lambda.IFunction) => void;
}

/**
 * The processor settings of a function of `stage`. The sandbox's ledger lives in the service
 * table, which each bound function has already. Prod settles on the default cut-offs (hourly at
 * :30); dev takes `settlementPeriodSeconds` from the stack's context so that testers see refunds
 * and receipts within minutes, cut-offs half a period past each period. Stripe: its mode by the
 * stage (prod live, others test), the secret's ARN and its read, and a processor rate under
 * Stripe's limits (contract/processor.ts).
 */
function processorSettings(fn: lambda.Function, stage: Stage): ProcessorSettings {
  const period: unknown = fn.node.tryGetContext(SETTLEMENT_PERIOD_CONTEXT);
  const settlement: Record<string, string> =
    stage !== 'prod' && typeof period === 'number'
      ? {
          SETTLEMENT_PERIOD_SECONDS: String(period),
          SETTLEMENT_OFFSET_SECONDS: String(Math.floor(period / 2)),
        }
      : {};
  const processor = processorOf(fn);
  const rate: unknown = fn.node.tryGetContext(PROCESSOR_RATE_CONTEXT);
  const rateOf = (fallback: number) => ({
    PROCESSOR_RATE: String(typeof rate === 'number' ? rate : fallback),
  });
  if (processor === 'sandbox')
    return {
      // The sandbox's rate is the functions' default (1,000) unless the context gives one.
      environment: { PROCESSOR: 'sandbox', ...settlement, ...(typeof rate === 'number' && rateOf(rate)) },
      grant: () => undefined,
    };
  const mode = stripeModeOf(stage);
  const key = stageStackOf(fn).node.tryFindChild(StripeSecretKey.ID);
  if (!(key instanceof StripeSecretKey))
    throw new Error(`stage ${stage} runs Stripe but has no ${StripeSecretKey.ID}`);
  return {
    environment: {
      PROCESSOR: 'stripe',
      STRIPE_MODE: mode,
      STRIPE_SECRET_KEY: `secretsmanager:${key.secret.secretArn}`,
      ...settlement,
      ...rateOf(DEFAULT_PROCESSOR_RATE[mode === 'live' ? 'stripe' : 'stripe-test']),
    },
    // Read, no more: the functions never write or list secrets.
    grant: (f) =>
      f.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [key.secret.secretArn],
        }),
      ),
  };
}

/** Give a function that may charge, refund or tokenize the processor's settings. */
export function bindProcessor(fn: lambda.Function, stage: Stage): void {
  const settings = processorSettings(fn, stage);
  for (const [name, value] of Object.entries(settings.environment)) fn.addEnvironment(name, value);
  settings.grant(fn);
}

/** The timeout of a function that charges or reverses in batches, at the stage's processor. */
export const batchTimeoutSecondsOf = (scope: IConstruct): number =>
  PROCESSOR_TIMING[processorOf(scope)].batchTimeoutSeconds;
