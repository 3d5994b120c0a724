/**
 * The functions' one configuration: every environment variable they use, parsed once at module
 * load into one typed, frozen object. A missing or malformed value fails the cold start with a
 * message naming the variable, instead of failing a request later. CDK sets the variables; the
 * local runtime sets their local equivalents (docs/operating.md "Configuration of the functions").
 */
import { parseStage, type Stage } from '#contract/stage';

type Env = Readonly<Record<string, string | undefined>>;

export interface FunctionConfig {
  readonly tableName: string;
  readonly stage: Stage;
  /** Powertools service name of logs and traces. */
  readonly serviceName: string;
  /** Seconds a client→merchant grant is cached in a warm container. */
  readonly authzCacheSeconds: number;
  /** Window of the duplicate check (same merchant, method and amount). */
  readonly duplicateWindowSeconds: number;
  /** Name of the processor adapter (lambdas/processor/index.ts lists them). */
  readonly processor: string;
  /**
   * The Stripe processor (PROCESSOR=stripe): STRIPE_MODE `live` or `test` (the secret key must be
   * of that mode: a live key never runs a test stage), and STRIPE_API, the address of Stripe's API
   * when it is not Stripe's own (the local runtime's stand-in, `http://127.0.0.1:<port>`).
   */
  readonly stripeMode: 'live' | 'test';
  readonly stripeApi: string | undefined;
  /** The sandbox processor's settlement cut-offs. */
  readonly settlement: { readonly periodSeconds: number; readonly offsetSeconds: number };
  /** SANDBOX_LATENCY_MS: the sandbox processor answers every call after this many milliseconds. */
  readonly sandboxLatencyMs: number;
  /** Payments per AuthorizeBatch task, and sales in flight at once within it. */
  readonly processBatchSize: number;
  readonly processConcurrency: number;
  /**
   * PROCESS_FAN_OUT (default 40, the Map's most): key ranges of one group processed at once (the
   * state machine's Map), so that a large group can take its share of the processor's rate at any
   * latency (40 × 16 in flight: 410 charges a second at 1.5 s); PROCESSOR_GROUP_RATE, not the
   * fan-out, keeps its partition under its write limit (docs/operating.md "The busiest slot").
   */
  readonly processFanOut: number;
  /**
   * PROCESS_FIRST_BATCH_SIZE (default 16): payments of a group's first batch, charged in the
   * processor rate's first-batch lane, so that every group of a busy slot has its first answers
   * within minutes (docs/decisions.md "The processor's rate").
   */
  readonly processFirstBatchSize: number;
  /**
   * PROCESSOR_RATE (default 1,000): charges per second the acquirer takes across all groups;
   * processing never asks for more (core/processor-rate.ts, a limiter in the table).
   * PROCESSOR_GROUP_RATE (default 200): at most this many of them for one group, whose answers
   * share one partition (DynamoDB: 1,000 units a second): each is a payment item of about 1.2 KB
   * written in a transaction with its event, 4 units (measured by the bench, 2026-11-26).
   * PROCESSOR_MERCHANT_RATE (default 400): at most this many of one merchant's groups together,
   * whose events share one index partition (GSI1 `EVENTS#<mid>`, about 2 units an event), and so
   * that one merchant cannot take a slot's whole rate from the others.
   */
  readonly processorRate: number;
  readonly processorGroupRate: number;
  readonly processorMerchantRate: number;
  /**
   * SETTLEMENT_POLL_SECONDS (1-60, default 60): outside production, how often processing waiting
   * for settlement checks whether the test clock settled its sales (core/test-clock.ts).
   */
  readonly settlementPollSeconds: number;
  /** Payments read per EmitReceipts page. */
  readonly receiptsPageSize: number;
  /** Sends of one e-mail before its outbox item is given up (throttled sends do not count). */
  readonly maxSendAttempts: number;
  /**
   * E-mail pacing (docs/decisions.md, "E-mail pacing"): EMAIL_SEND_RATE sends per second in all,
   * shared by EMAIL_SEND_CONCURRENCY senders at once; MAX_NOT_READY_RETRIES retries of an e-mail
   * that was throttled (or not ready) before its item is marked `stuck`, each delayed up to
   * EMAIL_RETRY_MAX_DELAY_SECONDS.
   */
  readonly emailSendRate: number;
  readonly emailSendConcurrency: number;
  readonly maxNotReadyRetries: number;
  readonly emailRetryMaxDelaySeconds: number;
  /**
   * SUPERVISE_AFTER_SECONDS: how old a processing claim must be before the hourly tick treats a
   * missing execution as lost and re-drives it (core/processing.ts SUPERVISE_AFTER_MS, 300 s).
   */
  readonly superviseAfterSeconds: number;
  /**
   * VOID_OR_REFUND_BACKGROUND_ABOVE (unset: VOID_OR_REFUND.syncLimit, 1,000, also the most): a
   * whole group's void-or-refund runs in the background when the group has more non-deleted
   * payments than this (core/void-or-refund-run.ts reversesInBackground). Lower it for a processor
   * whose reversals are slow; the e2e test of the background run sets 150.
   */
  readonly voidOrRefundBackgroundAbove: number | undefined;
  /** Only the functions that start executions (triggers, scheduler) have these; see `needed`. */
  readonly stateMachineArn: string | undefined;
  /** Only the void-or-refund API function starts the background void-or-refund. */
  readonly voidOrRefundStateMachineArn: string | undefined;
  /** Only the notifier sends e-mail. */
  readonly sesFromAddress: string | undefined;
  readonly sesConfigurationSet: string | undefined;
  /** The notifier's queue (the stream forwarder writes it; the notifier re-enqueues retries). */
  readonly notificationQueueUrl: string | undefined;
  /** The webhook queue (the stream forwarder, the webhook functions and the delivery function write it). */
  readonly webhookQueueUrl: string | undefined;
  /** The webhook slow lane's queue (only the delivery function writes it). */
  readonly webhookSlowQueueUrl: string | undefined;
  /** WEBHOOK_SECRET_KEY: how webhook secrets are sealed, `kms:<key>` or `file:<path>` (shared/secret-box.ts). */
  readonly webhookSecretKey: string | undefined;
  /**
   * IDEMPOTENCY_HASH_KEY: the key idempotency keys are kept by, `secretsmanager:<secret ARN>` or
   * `file:<path>` (shared/keyed-hash.ts); only the functions of routes that take a key have it.
   */
  readonly idempotencyHashKey: string | undefined;
  /** STRIPE_SECRET_KEY: where the Stripe secret key is (OPTIONAL_VARIABLES below). */
  readonly stripeSecretKey: string | undefined;
  /** PROCESSOR_WEBHOOK_SECRET: where the processor's webhook signing secret is (OPTIONAL_VARIABLES below). */
  readonly processorWebhookSecret: string | undefined;
  /**
   * WEBHOOK_ALLOW_LOOPBACK (`true` only in the local runtime): webhook URLs on 127.0.0.1 and
   * localhost are accepted. The cloud never sets it.
   */
  readonly webhookAllowLoopback: boolean;
  /**
   * WEBHOOK_RETRY_SCALE (default 1): multiplies the webhook retry schedule and the breaker's waits,
   * so that tests see retries in seconds. The cloud never sets it.
   */
  readonly webhookRetryScale: number;
  /**
   * EMIT_METRICS (default true; `false` only in the local runtime): the CloudWatch metrics' EMF
   * lines are written to stdout (shared/metrics.ts).
   */
  readonly emitMetrics: boolean;
}

/** The variable behind each value a function may lack; `needed` names it when missing. */
const OPTIONAL_VARIABLES = {
  stateMachineArn: 'STATE_MACHINE_ARN',
  voidOrRefundStateMachineArn: 'VOID_OR_REFUND_STATE_MACHINE_ARN',
  sesFromAddress: 'SES_FROM_ADDRESS',
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  notificationQueueUrl: 'NOTIFICATION_QUEUE_URL',
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  webhookSlowQueueUrl: 'WEBHOOK_SLOW_QUEUE_URL',
  webhookSecretKey: 'WEBHOOK_SECRET_KEY',
  idempotencyHashKey: 'IDEMPOTENCY_HASH_KEY',
  /**
   * STRIPE_SECRET_KEY: where the Stripe secret key is, `secretsmanager:<secret ARN>` or
   * `file:<path>` (lambdas/shared/secret-setting.ts); only the functions that call the processor
   * of a Stripe stage have it.
   */
  stripeSecretKey: 'STRIPE_SECRET_KEY',
  /**
   * PROCESSOR_WEBHOOK_SECRET: where the signing secret of the stage's webhook endpoint at its
   * processor (Stripe: `whsec_…`) is, as STRIPE_SECRET_KEY; only the function of the processor's
   * inbound route (`POST /processor-events/<processor>`) has it.
   */
  processorWebhookSecret: 'PROCESSOR_WEBHOOK_SECRET',
} as const;
type OptionalSetting = keyof typeof OPTIONAL_VARIABLES;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = text(env, name);
  if (value === undefined) throw new Error(`missing required environment variable ${name}`);
  return value;
}

/** An integer variable with its default and its least allowed value. */
function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`environment variable ${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** A positive factor (default 1), at most 1: settings that only ever shorten waits. */
function scale(env: Env, name: string): number {
  const raw = text(env, name);
  if (raw === undefined) return 1;
  const value = Number(raw);
  if (!(value > 0 && value <= 1))
    throw new Error(`environment variable ${name} must be a number in (0, 1], got "${raw}"`);
  return value;
}

function stripeMode(env: Env): 'live' | 'test' {
  const raw = text(env, 'STRIPE_MODE') ?? 'test';
  if (raw !== 'live' && raw !== 'test')
    throw new Error(`environment variable STRIPE_MODE must be live or test, got "${raw}"`);
  return raw;
}

const serviceNameOf = (env: Env): string => text(env, 'POWERTOOLS_SERVICE_NAME') ?? 'scheduled-payments';

/**
 * The service name of logs and traces, read at load: it cannot fail, so the logger and tracer
 * modules (which stores and tools import too) never force the rest of the configuration.
 */
export const SERVICE_NAME = serviceNameOf(process.env);

/** Parses the configuration from `env`; throws naming the first missing or malformed variable. */
export function loadConfig(env: Env): FunctionConfig {
  return Object.freeze({
    tableName: required(env, 'TABLE_NAME'),
    stage: parseStage(text(env, 'SERVICE_STAGE')),
    serviceName: serviceNameOf(env),
    authzCacheSeconds: integer(env, 'AUTHZ_CACHE_SECONDS', 30),
    duplicateWindowSeconds: integer(env, 'DUPLICATE_WINDOW_SECONDS', 300),
    processor: text(env, 'PROCESSOR') ?? 'sandbox',
    stripeMode: stripeMode(env),
    stripeApi: text(env, 'STRIPE_API'),
    settlement: Object.freeze({
      periodSeconds: integer(env, 'SETTLEMENT_PERIOD_SECONDS', 3600, 1),
      offsetSeconds: integer(env, 'SETTLEMENT_OFFSET_SECONDS', 1800),
    }),
    sandboxLatencyMs: integer(env, 'SANDBOX_LATENCY_MS', 0),
    processBatchSize: integer(env, 'PROCESS_BATCH_SIZE', 250, 1),
    processConcurrency: integer(env, 'PROCESS_CONCURRENCY', 16, 1),
    processFanOut: integer(env, 'PROCESS_FAN_OUT', 40, 1),
    processFirstBatchSize: integer(env, 'PROCESS_FIRST_BATCH_SIZE', 16, 1),
    processorRate: integer(env, 'PROCESSOR_RATE', 1000, 1),
    processorGroupRate: integer(env, 'PROCESSOR_GROUP_RATE', 200, 1),
    processorMerchantRate: integer(env, 'PROCESSOR_MERCHANT_RATE', 400, 1),
    settlementPollSeconds: Math.min(60, integer(env, 'SETTLEMENT_POLL_SECONDS', 60, 1)),
    receiptsPageSize: integer(env, 'RECEIPTS_PAGE_SIZE', 500, 1),
    maxSendAttempts: integer(env, 'MAX_SEND_ATTEMPTS', 5, 1),
    emailSendRate: integer(env, 'EMAIL_SEND_RATE', 14, 1),
    emailSendConcurrency: integer(env, 'EMAIL_SEND_CONCURRENCY', 1, 1),
    maxNotReadyRetries: integer(env, 'MAX_NOT_READY_RETRIES', 140, 0),
    emailRetryMaxDelaySeconds: integer(env, 'EMAIL_RETRY_MAX_DELAY_SECONDS', 900, 1),
    superviseAfterSeconds: integer(env, 'SUPERVISE_AFTER_SECONDS', 300, 1),
    voidOrRefundBackgroundAbove:
      text(env, 'VOID_OR_REFUND_BACKGROUND_ABOVE') === undefined
        ? undefined
        : integer(env, 'VOID_OR_REFUND_BACKGROUND_ABOVE', 0, 1),
    stateMachineArn: text(env, OPTIONAL_VARIABLES.stateMachineArn),
    voidOrRefundStateMachineArn: text(env, OPTIONAL_VARIABLES.voidOrRefundStateMachineArn),
    sesFromAddress: text(env, OPTIONAL_VARIABLES.sesFromAddress),
    sesConfigurationSet: text(env, OPTIONAL_VARIABLES.sesConfigurationSet),
    notificationQueueUrl: text(env, OPTIONAL_VARIABLES.notificationQueueUrl),
    webhookQueueUrl: text(env, OPTIONAL_VARIABLES.webhookQueueUrl),
    webhookSlowQueueUrl: text(env, OPTIONAL_VARIABLES.webhookSlowQueueUrl),
    webhookSecretKey: text(env, OPTIONAL_VARIABLES.webhookSecretKey),
    idempotencyHashKey: text(env, OPTIONAL_VARIABLES.idempotencyHashKey),
    stripeSecretKey: text(env, OPTIONAL_VARIABLES.stripeSecretKey),
    processorWebhookSecret: text(env, OPTIONAL_VARIABLES.processorWebhookSecret),
    webhookAllowLoopback: text(env, 'WEBHOOK_ALLOW_LOOPBACK') === 'true',
    webhookRetryScale: scale(env, 'WEBHOOK_RETRY_SCALE'),
    emitMetrics: text(env, 'EMIT_METRICS') !== 'false',
  });
}

let current: FunctionConfig | undefined;

/**
 * The configuration, parsed on the first call. Every function's handler builder (shared/http.ts,
 * shared/task.ts) calls this when its module loads, so a function's cold start fails on a missing
 * or malformed variable; operator tools that reuse a store (bin/admin.ts) never need it.
 */
export const config = (): FunctionConfig => (current ??= loadConfig(process.env));

/** A value only some functions have: throws naming the variable when this function lacks it. */
export function needed(setting: OptionalSetting): string {
  const value = config()[setting];
  if (value === undefined)
    throw new Error(`missing environment variable ${OPTIONAL_VARIABLES[setting]}: this function needs it`);
  return value;
}

/**
 * Test-only: parses the environment again. A Lambda container never changes its environment;
 * tests that give one module registry several environments call this after changing it.
 */
export function reloadConfigForTests(): void {
  current = loadConfig(process.env);
}
