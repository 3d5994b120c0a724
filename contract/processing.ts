/**
 * The processing state machine's file and its Task states: the single source for CDK
 * (definitionSubstitutions + one function per task) and for the local runtime (the same file run
 * by aws-local-stepfunctions, each Task bound to the same handler in-process).
 */
import { resolve } from 'node:path';
import { PROCESSOR_TIMING, type ProcessorName } from './processor';
import type { Stage } from './stage';

export const PROCESS_GROUP_DEFINITION = resolve(__dirname, '..', 'statemachines', 'process-group.asl.json');

export interface TaskBinding {
  /** Task state name in the ASL file. */
  readonly state: string;
  /** `${...}` placeholder of the function ARN in the ASL file. */
  readonly substitution: string;
  /** Handler module under `lambdas/`. */
  readonly handler: string;
  /**
   * The task may charge or reverse (its imports reach lambdas/processor/): CDK gives it the
   * processor's settings and grants, and only it.
   */
  readonly callsProcessor?: true;
}

export const processGroupTasks: readonly TaskBinding[] = [
  { state: 'BeginGroup', substitution: 'BeginGroupFunctionArn', handler: 'process-group/begin-group' },
  // A group's first batch: AuthorizeBatch's code in a function of its own (its own reserved concurrency).
  {
    state: 'AuthorizeFirstBatch',
    substitution: 'AuthorizeFirstBatchFunctionArn',
    handler: 'process-group/authorize-first-batch',
    callsProcessor: true,
  },
  {
    state: 'AuthorizeBatch',
    substitution: 'AuthorizeBatchFunctionArn',
    handler: 'process-group/authorize-batch',
    callsProcessor: true,
  },
  // Leaves its reversals to the sweeper, but loads the adapter (core/sale.ts), which checks
  // PROCESSOR at cold start.
  {
    state: 'FailBatch',
    substitution: 'FailBatchFunctionArn',
    handler: 'process-group/fail-batch',
    callsProcessor: true,
  },
  {
    state: 'CompleteGroup',
    substitution: 'CompleteGroupFunctionArn',
    handler: 'process-group/complete-group',
  },
  // Invoked outside production only (see settlementClock): reads the group and the test clock's mark.
  {
    state: 'CheckSettlement',
    substitution: 'CheckSettlementFunctionArn',
    handler: 'process-group/check-settlement',
  },
  // One page of one receipt range per invocation (QueueReceipts runs the ranges at once).
  { state: 'EmitReceipts', substitution: 'EmitReceiptsFunctionArn', handler: 'process-group/emit-receipts' },
  {
    state: 'ReceiptsQueued',
    substitution: 'ReceiptsQueuedFunctionArn',
    handler: 'process-group/receipts-queued',
  },
];

/**
 * Receipts of one page queued at once by EmitReceipts (a sale read and a conditional outbox put
 * each, on their own items): with PROCESS_FAN_OUT receipt ranges at once, 8 × 16 = 128 in flight
 * per group. CDK sizes the task's timeout from it.
 */
export const RECEIPTS_CONCURRENCY = 16;

/**
 * How processing waits for the settlement cut-off (the ASL's `${SettlementClock}`): production
 * waits for it (a plain Wait); other stages poll with CheckSettlement at least every minute, so
 * that the test clock (POST .../settle-now) sends a group to its receipts within a minute.
 */
export const settlementClock = (stage: Stage): 'cut-off' | 'test-clock' =>
  stage === 'prod' ? 'cut-off' : 'test-clock';

/**
 * The background void-or-refund (docs/decisions.md "Background void-or-refund"): its own state
 * machine, run for a group with more than `syncLimit` non-deleted payments; each ReverseBatch task
 * reverses up to `batchSize` payments, `concurrency` at once (CDK sizes its timeout from these).
 */
export const VOID_OR_REFUND_DEFINITION = resolve(__dirname, '..', 'statemachines', 'void-or-refund.asl.json');

export const VOID_OR_REFUND = {
  apiHandler: 'groups/void-or-refund',
  /** Payments reversed within the request: a whole group up to this size, or this many paymentIds. */
  syncLimit: 1000,
  batchSize: 250,
  concurrency: 16,
  /**
   * The API function's timeout: as long as API Gateway waits (29 s) less a second, so that the
   * function, not the gateway, answers.
   */
  apiTimeoutSeconds: 28,
  /**
   * The longest one payment's reversal takes: one processor call, bounded at 3 s by the adapter
   * (lambdas/processor/timeout.ts), and a few DynamoDB reads and writes with their retries. The
   * request starts no reversal later than this (plus a margin) before its timeout.
   */
  reversalSeconds: 6,
} as const;

/**
 * A ReverseBatch task's timeout at a processor: ⌈batch / concurrency⌉ rounds of reversals at the
 * processor's bound (contract/processor.ts), with room for the reads: 120 s at the sandbox.
 */
export const reverseBatchTimeoutSeconds = (processor: ProcessorName): number =>
  Math.ceil(VOID_OR_REFUND.batchSize / VOID_OR_REFUND.concurrency) *
    PROCESSOR_TIMING[processor].reversalSeconds +
  24;

export const voidOrRefundTasks: readonly TaskBinding[] = [
  { state: 'BeginReversal', substitution: 'BeginReversalFunctionArn', handler: 'void-or-refund/begin' },
  {
    state: 'ReverseBatch',
    substitution: 'ReverseBatchFunctionArn',
    handler: 'void-or-refund/reverse-batch',
    callsProcessor: true,
  },
  {
    state: 'CompleteReversal',
    substitution: 'CompleteReversalFunctionArn',
    handler: 'void-or-refund/complete',
  },
];

/**
 * One execution name per void-or-refund request generation of a group (at most 80 characters, no
 * `:`): a repeat while it runs finds the same execution; a repeat after it is done is a new one.
 */
export const voidOrRefundExecutionName = (groupId: string, generation: number): string =>
  `vr-${groupId}-${generation}`;

export const VOID_OR_REFUND_STATE_MACHINE_NAME = (stage: string): string =>
  `scheduled-payments-${stage}-void-or-refund`;

/** The queue consumer that sends the outbox's e-mails, paced. */
export const NOTIFIER_HANDLER = 'notifications/send-notifications';

/** The stream consumer that puts each new outbox item on the notifier's queue. */
export const OUTBOX_FORWARDER_HANDLER = 'notifications/enqueue-outbox';

/**
 * An AuthorizeBatch task takes no token of the processor's rate (core/processor-rate.ts) later
 * than this after it began: a batch that waited this long for the rate is given back unfinished
 * (its charged payments recorded, its cursor after them) and the state machine goes on with the
 * rest of its range. Within the sandbox's 120 s batch function: the last charges (3 s each,
 * retried twice) and their writes fit after it.
 */
export const BATCH_RATE_WAIT_SECONDS = 90;

/**
 * Processing's share of the account's Lambda concurrency, per stage: the reserved
 * concurrency of its task functions (lib/cdk/processing.ts). At most this many of each run at
 * once, whatever a slot holds (a throttled invocation is retried by the state machine, never
 * given up), and the API's functions keep the rest of the account: 1,000 by default, less these
 * (and the account keeps 100 unreserved, as Lambda requires). Prod's are what the busiest slot's
 * model needs at 1,000 charges a second (docs/operating.md "The busiest slot"); dev's are small
 * (a dev account's concurrency is often lower).
 */
export const PROCESSING_CONCURRENCY: Readonly<Record<Stage, Readonly<Record<string, number>>>> = {
  prod: {
    'process-group/begin-group': 20,
    'process-group/authorize-first-batch': 100,
    'process-group/authorize-batch': 300,
    'process-group/fail-batch': 10,
    'process-group/complete-group': 10,
    'process-group/check-settlement': 5,
    'process-group/emit-receipts': 50,
    'process-group/receipts-queued': 5,
  },
  dev: {
    'process-group/begin-group': 5,
    'process-group/authorize-first-batch': 10,
    'process-group/authorize-batch': 50,
    'process-group/fail-batch': 2,
    'process-group/complete-group': 2,
    'process-group/check-settlement': 2,
    'process-group/emit-receipts': 10,
    'process-group/receipts-queued': 2,
  },
};

/** The hourly EventBridge rule's target. */
export const SCHEDULER_HANDLER = 'scheduled/supervise-processing';

/** How long the hourly tick's function may run (its Lambda timeout). */
export const SCHEDULER_TIMEOUT_SECONDS = 300;

/**
 * Pending groups a starter (the tick, the due start, a trigger) claims and starts at once: a
 * claim, a StartExecution and the record of its ARN each.
 */
export const START_CONCURRENCY = 8;

/**
 * StartExecution calls a second one starter container makes at most (core/processing.ts): Step
 * Functions' bucket refills at 300 a second (1,300 at once) in the large Regions, so the tick and a
 * due start starting at once stay within its refill; a throttled call is retried by the SDK
 * (4 tries), and a start that still fails releases its claim for the next due start.
 */
export const START_RATE = 150;

/**
 * The due start (docs/decisions.md, "The current hour"): every minute (EventBridge; locally every
 * LOCAL_DUE_SWEEP_SECONDS) it starts the pending groups of the current and earlier slots, so that
 * a group created in, or moved into, the current hour after its tick waits no longer than that.
 */
export const DUE_START_HANDLER = 'scheduled/start-due-groups';
/** The due start's schedule and its function's timeout (within the minute, so two never overlap). */
export const DUE_START_INTERVAL_SECONDS = 60;
export const DUE_START_TIMEOUT_SECONDS = 50;

/** The sweeper's EventBridge rule target (every SWEEP_INTERVAL_MINUTES): settles stale Pending work. */
export const SWEEPER_HANDLER = 'scheduled/settle-stale-work';
export const SWEEP_INTERVAL_MINUTES = 5;
/**
 * How long one sweep starts work: its function's timeout leaves room after it for the last items
 * (one processor call each, 3 s, with its writes) and for one abandoned create's removal.
 */
export const SWEEP_BUDGET_SECONDS = 180;
export const SWEEP_TIMEOUT_SECONDS = 300;

/**
 * The daily reconciliation rule's target (docs/architecture.md#reconciliation), and the message of
 * the log line holding its report, which the unhealed-differences metric filter matches.
 */
export const RECONCILIATION = {
  handler: 'scheduled/reconcile',
  reportMessage: 'reconciliation report',
} as const;

/**
 * One execution name per processing attempt of a group (at most 80 characters, no `:`): a repeated
 * start of the same attempt is not a second run, and a re-drive after a closed execution is a new
 * name (Step Functions never runs a name twice).
 */
export const executionName = (groupId: string, attempt: number): string => `pg-${groupId}-${attempt}`;

export const STATE_MACHINE_NAME = (stage: string): string => `scheduled-payments-${stage}-process-group`;

/** Processing's executions time out after this (the ASL file's TimeoutSeconds). */
export const EXECUTION_TIMEOUT_SECONDS = 6 * 3600;

/**
 * The tick's metric (CloudWatch embedded metric format): groups still processing longer than an
 * execution may run, which only a wedged group can be. CDK alarms on it.
 */
export const STUCK_GROUPS_METRIC = {
  namespace: 'ScheduledPayments',
  name: 'GroupsProcessingTooLong',
  dimension: 'Stage',
} as const;
