/**
 * The peak-slot model's inputs, each from where the service or the bench keeps it: the functions'
 * configuration as the CDK app deploys it (lambdas/shared/config.ts defaults: lib/cdk sets none of
 * the PROCESS_* variables), the state machine's retry policies (statemachines/process-group.asl.json),
 * the contract's constants, and the per-payment costs the bench measured (bench/results.json). The
 * few figures nothing here measures (a DynamoDB round trip in the Region, item sizes) are named
 * assumptions with their reason.
 */
import { readFileSync } from 'node:fs';
import {
  BATCH_RATE_WAIT_SECONDS,
  PROCESSING_CONCURRENCY,
  START_RATE,
  DUE_START_INTERVAL_SECONDS,
  DUE_START_TIMEOUT_SECONDS,
  PROCESS_GROUP_DEFINITION,
  SCHEDULER_TIMEOUT_SECONDS,
  START_CONCURRENCY,
} from '../../contract/processing';
import { loadConfig } from '../../lambdas/shared/config';
import { DAY_SHARDS } from '../../lambdas/store/day-index';
import { DUE_SHARDS, SWEEP_SHARDS, WEBHOOK_DUE_SHARDS } from '../../lambdas/store/keys';
import { PROCESSOR_TIMEOUT_MS } from '../../lambdas/processor/timeout';
import type { Results } from '../support/results';
import { seededRandom } from './queue';
import type { FunctionName } from './lambda';

/** A Retry entry of the ASL file, for one error. */
export interface RetryPolicy {
  intervalSeconds: number;
  maxAttempts: number;
  backoffRate: number;
  maxDelaySeconds: number;
  fullJitter: boolean;
}

/** The state machine's retry policies of the tasks the model runs, by error name. */
export type TaskRetries = Record<string, RetryPolicy>;

export interface ServiceSettings {
  batchSize: number;
  /** A group's first batch (PROCESS_FIRST_BATCH_SIZE), charged in the rate's first lane. */
  firstBatchSize: number;
  /** PROCESSOR_RATE and PROCESSOR_GROUP_RATE: the limiter's (core/processor-rate.ts). */
  processorRate: number;
  groupRate: number;
  /** PROCESSOR_MERCHANT_RATE: of one merchant's groups together. */
  merchantRate: number;
  /** A batch takes no token later than this after its task began (then it is given back unfinished). */
  batchRateWaitSeconds: number;
  /** StartExecution calls a second one starter makes at most. */
  startRate: number;
  /** Reserved concurrency of the processing functions in prod (lib/cdk: contract PROCESSING_CONCURRENCY). */
  reserved: Partial<
    Record<'BeginGroup' | 'AuthorizeFirstBatch' | 'AuthorizeBatch' | 'FailBatch' | 'CompleteGroup', number>
  >;
  /** Charges in flight per AuthorizeBatch task (PROCESS_CONCURRENCY). */
  concurrency: number;
  fanOut: number;
  startConcurrency: number;
  schedulerTimeoutSeconds: number;
  dueSweepIntervalSeconds: number;
  dueSweepTimeoutSeconds: number;
  processorTimeoutSeconds: number;
  authorizeBatchTimeoutSeconds: number;
  retries: {
    BeginGroup: TaskRetries;
    AuthorizeBatch: TaskRetries;
    FailBatch: TaskRetries;
    CompleteGroup: TaskRetries;
  };
  emailSendRate: number;
}

interface AslRetry {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
}
interface AslState {
  Retry?: AslRetry[];
  TimeoutSeconds?: number;
  ItemProcessor?: { States: Record<string, AslState> };
}

/** The ASL's defaults where a Retry entry leaves a field out (Step Functions' documented ones). */
function retriesOf(state: AslState | undefined): TaskRetries {
  const out: TaskRetries = {};
  for (const r of state?.Retry ?? []) {
    for (const error of r.ErrorEquals) {
      out[error] ??= {
        intervalSeconds: r.IntervalSeconds ?? 1,
        maxAttempts: r.MaxAttempts ?? 3,
        backoffRate: r.BackoffRate ?? 2,
        maxDelaySeconds: r.MaxDelaySeconds ?? Infinity,
        fullJitter: r.JitterStrategy === 'FULL',
      };
    }
  }
  return out;
}

/** The policy Step Functions applies to `error` (its own entry, else States.ALL), if any. */
export const policyFor = (retries: TaskRetries, error: string): RetryPolicy | undefined =>
  retries[error] ?? retries['States.ALL'];

/** The deployed service's settings: the functions' configuration and the state machine's file. */
export function serviceSettings(): ServiceSettings {
  // The CDK app sets none of the processing variables: the functions run on these defaults.
  const config = loadConfig({ TABLE_NAME: 'peak-slot-model' });
  const asl = JSON.parse(readFileSync(PROCESS_GROUP_DEFINITION, 'utf8')) as {
    States: Record<string, AslState>;
  };
  const map = asl.States.AuthorizeRanges?.ItemProcessor?.States ?? {};
  const reserved = PROCESSING_CONCURRENCY.prod;
  return {
    batchSize: config.processBatchSize,
    firstBatchSize: Math.min(config.processFirstBatchSize, config.processBatchSize),
    processorRate: config.processorRate,
    groupRate: config.processorGroupRate,
    merchantRate: config.processorMerchantRate,
    batchRateWaitSeconds: BATCH_RATE_WAIT_SECONDS,
    startRate: START_RATE,
    reserved: {
      BeginGroup: reserved['process-group/begin-group'],
      AuthorizeFirstBatch: reserved['process-group/authorize-first-batch'],
      AuthorizeBatch: reserved['process-group/authorize-batch'],
      FailBatch: reserved['process-group/fail-batch'],
      CompleteGroup: reserved['process-group/complete-group'],
    },
    concurrency: config.processConcurrency,
    fanOut: config.processFanOut,
    startConcurrency: START_CONCURRENCY,
    schedulerTimeoutSeconds: SCHEDULER_TIMEOUT_SECONDS,
    dueSweepIntervalSeconds: DUE_START_INTERVAL_SECONDS,
    dueSweepTimeoutSeconds: DUE_START_TIMEOUT_SECONDS,
    processorTimeoutSeconds: PROCESSOR_TIMEOUT_MS / 1000,
    authorizeBatchTimeoutSeconds: map.AuthorizeBatch?.TimeoutSeconds ?? Infinity,
    retries: {
      BeginGroup: retriesOf(asl.States.BeginGroup),
      AuthorizeBatch: retriesOf(map.AuthorizeBatch),
      FailBatch: retriesOf(map.FailBatch),
      CompleteGroup: retriesOf(asl.States.CompleteGroup),
    },
    emailSendRate: config.emailSendRate,
  };
}

/**
 * Assumed, not measured: a DynamoDB call's round trip from a Lambda function in the same Region
 * (docs/operating.md "The busiest slot": 5-10 ms), Step Functions' own time per Task (the transition and
 * the Lambda invoke) and a StartExecution call's round trip.
 */
export const REGION = { ddbCallSeconds: 0.007, taskOverheadSeconds: 0.05, sfnCallSeconds: 0.03 } as const;

/**
 * What is assumed about the table's writes beside what the bench measures. The sandbox processor's
 * ledger (`SANDBOX` items and their day index) is the processor's own write (a real acquirer keeps
 * it on its side): counted by the bench, left out of the table's; so are the limiter's windows
 * (`RATE`), which the model writes itself as it takes them. A sparse index's entry (the sweep
 * index, `SWEEP`) is removed once when its item is final, a write the census cannot see (a Put that
 * replaces the item without the key): counted once more. DynamoDB bills a transaction's writes twice
 * on the table, and (by assumption) once on an index. BeginGroup's count through the group's keys
 * reads about 500 bytes per payment, 1 MB (128 read units, eventually consistent) per Query. Write
 * units of a class the bench did not size: 1 (items under 1 KB).
 */
export const ITEMS = {
  processorOwnClasses: ['SANDBOX'] as readonly string[],
  /** The limiter's windows: the model takes them as the limiter does, and counts those writes itself (limiter.ts). */
  modelledClasses: ['RATE'] as readonly string[],
  /**
   * Written off a charge's path: the webhook fan-out's cursors (`WHSEEN`), by the table stream's
   * consumer after the answer. Their write units count; their calls are not a charge's time.
   */
  offPathClasses: ['WHSEEN'] as readonly string[],
  sparseIndexes: ['SWEEP'] as readonly string[],
  transactionFactor: 2,
  unsizedWriteUnits: 1,
  countBytesPerPayment: 500,
  queryBytes: 1024 * 1024,
  readUnitsPerQuery: 128,
} as const;

/** The partitions one merchant's, or all merchants', payments write besides their group's (index partitions). */
export interface IndexLoad {
  /** GSI partition class (`EVENTS`, `TXN`, `SWEEP`...). */
  index: string;
  /** Write units a payment puts on it. */
  unitsPerPayment: number;
  /** Partitions those writes are spread over, and whose payments share them. */
  partitions: number;
  scope: 'merchant' | 'table';
}

/** What one payment costs, and where each figure comes from. */
export interface PaymentCosts {
  /** DynamoDB calls before the processor is asked, and after its answer (the last is the `authResponse` write). */
  callsBefore: number;
  callsAfter: number;
  /** Lambda CPU time per payment (the local runtime's, a fair stand-in for a 1 GB function). */
  cpuSeconds: number;
  /** Write units per payment on the table (its indexes included), and on the group's partition. */
  tableWriteUnits: number;
  partitionWriteUnits: number;
  /** Write units per payment on the merchant's events partition (GSI1 `EVENTS#<mid>`). */
  merchantIndexWriteUnits: number;
  /** Every index partition class the payments write, with its spread. */
  indexLoads: IndexLoad[];
  historyEventsPerPayment: number;
  emailsPerPayment: number;
  sources: Record<string, string>;
}

const num = (x: unknown, what: string): number => {
  if (typeof x !== 'number' || !Number.isFinite(x))
    throw new Error(`bench/results.json has no ${what}: run its section first`);
  return x;
};

/** How the service spreads each index partition class it writes at the charge rate (keys.ts). */
const INDEX_SPREAD: Record<string, { partitions: number; scope: 'merchant' | 'table' }> = {
  EVENTS: { partitions: 1, scope: 'merchant' },
  TXN: { partitions: DAY_SHARDS, scope: 'table' },
  REFUND: { partitions: DAY_SHARDS, scope: 'table' },
  SWEEP: { partitions: SWEEP_SHARDS, scope: 'table' },
  DUE: { partitions: DUE_SHARDS, scope: 'table' },
  WHDUE: { partitions: WEBHOOK_DUE_SHARDS, scope: 'table' },
};

/** Write units per payment from the census's placements and the sized items (bench/support/count-call.ts). */
export function writeUnits(
  writes: Record<string, number>,
  items: Record<string, { writeUnits: number }>,
): Pick<PaymentCosts, 'tableWriteUnits' | 'partitionWriteUnits' | 'merchantIndexWriteUnits' | 'indexLoads'> {
  const units = (cls: string) => items[cls]?.writeUnits ?? ITEMS.unsizedWriteUnits;
  const own = (cls: string) => ITEMS.processorOwnClasses.includes(cls) || ITEMS.modelledClasses.includes(cls);
  let table = 0;
  let partition = 0;
  const byIndex: Record<string, number> = {};
  for (const [key, count] of Object.entries(writes)) {
    const [kind, rest] = [key.slice(0, key.indexOf('.')), key.slice(key.indexOf('.') + 1)];
    if (kind === 'write') {
      const [cls, tx] = rest.split('.');
      if (own(cls!)) continue;
      const u = count * units(cls!) * (tx === 'tx' ? ITEMS.transactionFactor : 1);
      table += u;
      if (cls === 'GROUP') partition += u;
    } else if (kind === 'index') {
      const [index, cls] = rest.split('@');
      if (own(index!) || own(cls!)) continue;
      const u = count * units(cls!) * (ITEMS.sparseIndexes.includes(index!) ? 2 : 1);
      table += u;
      byIndex[index!] = (byIndex[index!] ?? 0) + u;
    }
  }
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const indexLoads = Object.entries(byIndex)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([index, u]) => ({
      index,
      unitsPerPayment: r(u),
      ...(INDEX_SPREAD[index] ?? { partitions: 1, scope: 'table' as const }),
    }));
  return {
    tableWriteUnits: r(table),
    partitionWriteUnits: r(partition),
    merchantIndexWriteUnits: r(byIndex.EVENTS ?? 0),
    indexLoads,
  };
}

/** The per-payment costs from the bench's last results. */
export function paymentCosts(results: Results): PaymentCosts {
  type Run = {
    latencyMs: number;
    ddbCallsPerPayment: Record<string, number>;
    writesPerPayment?: Record<string, number>;
    itemClasses?: Record<string, { writeUnits: number }>;
  };
  const latency = results.processingLatency as { runs?: Run[] } | undefined;
  const run = latency?.runs?.find((r) => r.latencyMs > 0);
  const sm = (results.processing as { stateMachine?: Record<string, unknown> } | undefined)?.stateMachine;
  if (!run?.writesPerPayment || !run.itemClasses)
    throw new Error(
      'bench/results.json has no processingLatency run with writesPerPayment and itemClasses: run that section first',
    );
  const calls = run.ddbCallsPerPayment;
  const callsSource = `processingLatency.runs[latencyMs=${run.latencyMs}]`;
  // A charge's own calls: the limiter's (the model takes its tokens itself) and the webhook
  // fan-out's (off the charge's path, single-item Updates) left out.
  const aside = [...ITEMS.modelledClasses, ...ITEMS.offPathClasses].reduce(
    (sum, cls) => sum + (run.writesPerPayment?.[`write.${cls}`] ?? 0),
    0,
  );
  const all = Object.values(calls).reduce((a, b) => a + b, 0) - aside;
  const cpu = num(
    (sm?.cpuMsPerPayment as Record<string, number> | undefined)?.runtime,
    'processing.stateMachine.cpuMsPerPayment.runtime',
  );
  const receipts = (results.receipts as { runs?: { payments: number; receipts: number }[] } | undefined)
    ?.runs?.[0];
  const units = writeUnits(run.writesPerPayment, run.itemClasses);
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  return {
    // The sale's read, the saved method, the duplicate guard and the sale written Pending come
    // first; the final sale and the payment's answer (with its event) after it: two calls.
    callsBefore: all - 2,
    callsAfter: 2,
    cpuSeconds: cpu / 1000,
    ...units,
    historyEventsPerPayment: num(
      sm?.historyEventsPerPayment,
      'processing.stateMachine.historyEventsPerPayment',
    ),
    emailsPerPayment: receipts ? receipts.receipts / receipts.payments : 1,
    sources: {
      ddbCalls:
        `bench/results.json ${callsSource}.ddbCallsPerPayment: ${list(calls)}, less ${Math.round(aside * 1000) / 1000} ` +
        `Updates of ${[...ITEMS.modelledClasses, ...ITEMS.offPathClasses].join(' and ')} (the limiter's, which the model makes itself; the webhook fan-out's, off the charge's path)`,
      writes:
        `bench/results.json ${callsSource}.writesPerPayment (${list(run.writesPerPayment)}) on its itemClasses ` +
        `(${list(Object.fromEntries(Object.entries(run.itemClasses).map(([k, c]) => [k, c.writeUnits])))} units)`,
      cpu: `bench/results.json processing.stateMachine.cpuMsPerPayment.runtime: ${cpu} ms`,
      historyEvents: `bench/results.json processing.stateMachine.historyEventsPerPayment`,
      emails: receipts
        ? `bench/results.json receipts.runs[0]: ${receipts.receipts} receipts of ${receipts.payments} payments (every payor asking)`
        : 'assumed: every payor asks for a receipt',
    },
  };
}

/** The busiest slot's workload (issue 24): how many groups of which sizes. */
export const WORKLOAD = {
  payments: 1_000_000,
  groups: 3_000,
  large: { count: 5, size: 100_000 },
  medium: { count: 45, min: 1_000, max: 10_000 },
  small: { min: 20, max: 500 },
} as const;

export type Workload = {
  payments: number;
  groups: number;
  large: { count: number; size: number };
  medium: { count: number; min: number; max: number };
  small: { min: number; max: number };
};

/**
 * Group sizes in the due index's order (seeded, shuffled): `large.count` of `large.size`, medium
 * ones log-uniform in their range, and the rest small, log-uniform then scaled so that the sizes add
 * up to `payments` exactly (each kept within the small range).
 */
export function groupSizes(seed: number, w: Workload = WORKLOAD): number[] {
  const random = seededRandom(seed);
  const logUniform = (min: number, max: number) => Math.round(min * Math.pow(max / min, random()));
  const fixed = [
    ...Array.from({ length: w.large.count }, () => w.large.size),
    ...Array.from({ length: w.medium.count }, () => logUniform(w.medium.min, w.medium.max)),
  ];
  const smallCount = w.groups - fixed.length;
  const target = w.payments - fixed.reduce((a, b) => a + b, 0);
  if (smallCount <= 0 || target < smallCount * w.small.min || target > smallCount * w.small.max)
    throw new Error('the workload cannot add up: check its counts and ranges');
  const raw = Array.from({ length: smallCount }, () => logUniform(w.small.min, w.small.max));
  const scale = target / raw.reduce((a, b) => a + b, 0);
  const clamp = (n: number) => Math.min(w.small.max, Math.max(w.small.min, n));
  const small = raw.map((n) => clamp(Math.round(n * scale)));
  // Close the rounding gap one payment at a time on groups that still have room.
  let gap = target - small.reduce((a, b) => a + b, 0);
  for (let i = 0; gap !== 0; i = (i + 1) % small.length) {
    const next = small[i]! + Math.sign(gap);
    if (next >= w.small.min && next <= w.small.max) {
      small[i] = next;
      gap -= Math.sign(gap);
    }
  }
  const sizes = [...fixed, ...small];
  for (let i = sizes.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [sizes[i], sizes[j]] = [sizes[j]!, sizes[i]!];
  }
  return sizes;
}

/** What one run of the model (model.ts runModel) takes. */
export interface ModelInput {
  /** Payments per group, in the due index's order. */
  sizes: readonly number[];
  latencySeconds: number;
  /** Charges per second the processor takes across all groups (beyond it, it refuses). */
  processorRate: number;
  seed: number;
  costs: PaymentCosts;
  service: ServiceSettings;
  /** Quotas: AWS's defaults unless given (the unit tests shrink them). */
  limits?: Partial<{
    account: number;
    tableWcu: number;
    partitionWcu: number;
    startExecution: { bucket: number; perSecond: number };
    transitions: { bucket: number; perSecond: number };
  }>;
  /** Reserved concurrency per function (default: the service's, PROCESSING_CONCURRENCY.prod). */
  reserved?: Partial<Record<FunctionName, number>>;
  /** Concurrency the API's functions hold through the slot (from the shared pool). */
  apiConcurrency?: number;
  /**
   * Charges per second the service's limiter allows (default: the processor's rate, as
   * PROCESSOR_RATE is set to it); a what-if can set it apart from the processor's.
   */
  limiterRate?: number;
  /** StartExecution calls per second each starter paces itself to (default START_RATE). */
  startsPerSecond?: number;
  /** Group `g`'s merchant (default: each group its own merchant's). */
  merchantOf?: (g: number) => number;
  /** A group's ranges at once (default: rangePlan with PROCESS_FAN_OUT). */
  fanOutOf?: (size: number) => number;
  /** Round trips in the Region (REGION unless given). */
  region?: { ddbCallSeconds: number; taskOverheadSeconds: number; sfnCallSeconds: number };
  /** Stop the model here (seconds): whatever is unanswered then is reported so. */
  horizonSeconds?: number;
  /**
   * Each event the slot writes, when it is written: a payment's answer's, and its group's
   * `group.processing` and `group.processed` (the deliveries' model, delivery.ts, takes them).
   */
  onEvent?: (g: number, t: number, kind: 'payment' | 'group') => void;
  /** Others' write units on the table (the deliveries'), each [when, units]: processing's writes wait behind them. */
  otherTableWrites?: readonly (readonly [number, number])[];
}
