/** The peak-slot section's result types and its report (console lines and bench/results.md). */
import type { Results } from '../support/results';
import type { Bound } from './bounds';
import type { PaymentCosts } from './inputs';
import { FUNCTIONS } from './lambda';
import {
  DDB_ON_DEMAND_NEW_TABLE_WCU,
  DDB_PARTITION_WCU,
  LAMBDA_ACCOUNT_CONCURRENCY,
  SES_SEND_RATE,
  SFN_HISTORY_EVENTS_PER_EXECUTION,
} from './quotas';
import type { SlotDeliveries } from './slot-deliveries';
import type { ModelResult, Percentiles } from './stats';

export interface PeakRun {
  name: string;
  latencySeconds: number;
  processorRate: number;
  /** A what-if run with no processor limit (what else binds). */
  unlimited: boolean;
  result: ModelResult;
  bounds: Bound[];
  tightest: Bound;
  /** The slot's webhooks (slot-deliveries.ts; not of the what-if without a processor's rate). */
  deliveries?: SlotDeliveries;
}

export interface PeakSlotResult {
  measuredAt: string;
  commit?: string;
  seed: number;
  processorRate: number;
  workload: Record<string, unknown> & {
    payments: number;
    groups: number;
    sizes: Percentiles & { min: number };
  };
  settings: {
    batchSize: number;
    concurrency: number;
    fanOut: number;
    startConcurrency: number;
    emailSendRate: number;
    authorizeBatchTimeoutSeconds: number;
  };
  costs: PaymentCosts;
  assumptions: Record<string, unknown> & { ddbCallSeconds: number; taskOverheadSeconds: number };
  targets: { lastAnswerFactor: number; firstAnswerSeconds: number };
  runs: PeakRun[];
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
/** A time the model reached (results.json keeps a NaN as null: a slot that did not finish). */
const reached = (n: number | null): n is number => typeof n === 'number' && Number.isFinite(n);
const sec = (n: number | null) => (reached(n) ? `${int(n)} s` : 'never');
const min = (n: number | null) => (reached(n) ? `${(n / 60).toFixed(1)} min` : 'never');
const pcts = (p: Percentiles) => `${sec(p.p50)} / ${sec(p.p99)} / ${sec(p.max)}`;

/** The run's verdicts against the issue's targets. */
export function verdicts(run: PeakRun, targets: PeakSlotResult['targets']) {
  const r = run.result;
  const limit = targets.lastAnswerFactor * run.tightest.seconds;
  const finished = r.answered === r.payments && reached(r.lastAnswerSeconds);
  const lastOk = finished && r.lastAnswerSeconds <= limit;
  const firstOk =
    r.groupsUnstarted === 0 && reached(r.firstAnswer.max) && r.firstAnswer.max <= targets.firstAnswerSeconds;
  const last = !finished
    ? `NOT met: the slot did not finish, ${int(r.payments - r.answered)} payments unanswered when the model stopped (${r.executionsFailed} executions failed)`
    : lastOk
      ? `met (${(r.lastAnswerSeconds / run.tightest.seconds).toFixed(2)}×)`
      : `NOT met: ${(r.lastAnswerSeconds / run.tightest.seconds).toFixed(2)}× the bound, ${sec(r.lastAnswerSeconds - limit)} over`;
  const late = r.firstAnswer.max - targets.firstAnswerSeconds;
  const first = firstOk
    ? 'met'
    : r.groupsUnstarted > 0
      ? `NOT met: ${r.groupsUnstarted} groups never answered in the slot`
      : `NOT met: the latest first answer ${sec(late)} over`;
  const rate =
    run.unlimited || r.processorRefused === 0
      ? 'met'
      : `NOT met: ${int(r.processorRefused)} charges asked over it (refused), up to ${int(r.peakChargesPerSecond)} taken in a second`;
  const givenUp =
    r.givenUp === 0 && r.executionsFailed === 0
      ? 'met'
      : `NOT met: ${int(r.givenUp)} given up, ${r.executionsFailed} executions failed`;
  return { lastOk, firstOk, last, first, limit, rate, givenUp };
}

/** What bound the run, from what it ran into. */
function binding(run: PeakRun): string {
  const r = run.result;
  const facts: string[] = [];
  const lambdaThrottles = FUNCTIONS.reduce((n, f) => n + r.lambdaThrottles[f], 0);
  if (!run.unlimited && r.processorRefused === 0 && r.chargesPaced > 0)
    facts.push(
      `the processor's rate: the limiter held processing to ${int(r.peakChargesPerSecond)} charges in its busiest second ` +
        `(${int(r.chargesPaced)} waits for a window, ${int(r.batchesHeld)} batches given back unfinished, none refused)`,
    );
  if (r.processorRefused > 0)
    facts.push(
      `the processor's rate: it took up to ${int(r.peakChargesPerSecond)} charges a second and refused ` +
        `${int(r.processorRefused)} asked over its rate (processing does not pace itself), each failing its batch into a ProcessorUnavailable ` +
        `retry (15 s and more later), ${int(r.givenUpProcessor)} payments given up when a batch ran out of retries`,
    );
  if (lambdaThrottles > 0)
    facts.push(
      `Lambda concurrency: processing held at most ${int(r.peakProcessingConcurrency)} executions, its reserved share (the API left ${int(r.minApiHeadroom)}), ` +
        `${int(lambdaThrottles)} invocations throttled (${FUNCTIONS.filter((f) => r.lambdaThrottles[f] > 0)
          .map((f) => `${f} ${int(r.lambdaThrottles[f])}`)
          .join(', ')}): retried by the state machine, ${r.executionsFailed} executions failed`,
    );
  if (r.tableThrottled > 0)
    facts.push(`the table's write capacity (${int(r.tableThrottled)} writes throttled)`);
  if (r.partitionThrottled > 0)
    facts.push(`a group's partition (${int(r.partitionThrottled)} writes throttled)`);
  if (r.merchantIndexThrottled > 0)
    facts.push(`a merchant's events partition (${int(r.merchantIndexThrottled)} writes throttled)`);
  if (r.indexThrottled > 0)
    facts.push(`a table-wide index's shards (${int(r.indexThrottled)} writes throttled)`);
  const own = run.bounds.find(
    (b) => b.kind === 'configuration' && b.limit.startsWith("the largest group's own"),
  );
  if (
    own &&
    r.largestGroupLastSeconds <= 1.25 * own.seconds &&
    r.largestGroupLastSeconds >= 0.9 * r.lastAnswerSeconds
  )
    facts.push(
      `the largest group's own fan-out (its last answer at ${sec(r.largestGroupLastSeconds)}, its bound ${sec(own.seconds)})`,
    );
  return facts.length > 0 ? facts.join('; ') : 'nothing throttled: the slot ran at its bounds';
}

type AtConcurrency = SlotDeliveries['deployed'];

/** Seconds, with a decimal under 10. */
const secs = (n: number) => (n < 10 ? `${n.toFixed(1)} s` : sec(n));
const secsPcts = (p: Percentiles) => `${secs(p.p50)} / ${secs(p.p99)} / ${secs(p.max)}`;

/** Webhooks at one `webhookConcurrency`: its reservation, the last after the last answer, the lags. */
const webhooksAt = (a: AtConcurrency | undefined, d: SlotDeliveries) =>
  a === undefined
    ? "none within the stack's 100"
    : `${a.concurrency} (reserved ${a.reserved}): the last ${secs(a.result.afterLastSeconds)} after the last answer ` +
      `(${a.met ? 'met' : `NOT met, target ${min(d.target)}`}); answer → webhook ${secsPcts(a.result.lag)}; ` +
      `${int(a.result.peakInvocations)} invocations at most`;

/** The webhooks' rows of the report (a run without them: '-'). */
function deliveryRows(runs: readonly PeakRun[], row: (label: string, f: (run: PeakRun) => string) => string) {
  const d = (f: (d: SlotDeliveries) => string) => (run: PeakRun) =>
    run.deliveries ? f(run.deliveries) : '-';
  return [
    row(
      "webhooks at prod's `webhookConcurrency` (target: the last within 5 min of the last answer)",
      d((x) => webhooksAt(x.deployed, x)),
    ),
    row(
      "at dev's (prod's before issue 36)",
      d((x) => webhooksAt(x.devDefault, x)),
    ),
    row(
      'the least `webhookConcurrency` meeting it',
      d((x) => webhooksAt(x.least, x)),
    ),
    row(
      'the least keeping pace (answer → webhook p99 ≤ 10 s)',
      d((x) => webhooksAt(x.pace, x)),
    ),
    row(
      `Lambda beside processing (account ${int(LAMBDA_ACCOUNT_CONCURRENCY)})`,
      d((x) => {
        const a = x.deployed;
        return (
          `processing reserves ${int(x.processingReserved)}, deliveries ${a.reserved} at ${a.concurrency}: ` +
          `${int(a.unreserved)} left unreserved (at least 100) for the API and the stream forwarder ` +
          `(${a.result.peakForwarders} at most, one per stream shard: ${x.shards})`
        );
      }),
    ),
    row(
      "processing's last answer with the deliveries' writes on the table (without them)",
      d(
        (x) =>
          `${sec(x.processing.withDeliveriesSeconds)} (${sec(x.processing.lastAnswerSeconds)}) at ${x.processing.deliveriesAt}; ` +
          `the table's peak together ${int(x.processing.peakTableWcu.together)} of ${int(x.processing.peakTableWcu.cap)} ` +
          `(processing alone ${int(x.processing.peakTableWcu.processing)}, deliveries ${int(x.processing.peakTableWcu.deliveries)})`,
      ),
    ),
    row(
      `deliveries' peak write units a second: an endpoint's list (GSI1); a due shard (GSI2) (limit ${int(DDB_PARTITION_WCU)} each)`,
      d((x) => {
        const a = x.deployed;
        return `${int(a.result.peakEndpointListWcu)}; ${int(a.result.peakDueShardWcu)} (at ${a.concurrency})`;
      }),
    ),
  ];
}

export function report(results: Results): { console: string; markdown: string } | undefined {
  const p = results.peakSlot as PeakSlotResult | undefined;
  if (!p) return undefined;
  const runs = p.runs;
  const v = runs.map((run) => verdicts(run, p.targets));
  const lines = runs.map(
    (run, i) =>
      `peak-slot ${run.name}: last answer ${sec(run.result.lastAnswerSeconds)} (tightest bound ${sec(run.tightest.seconds)}: ${v[i]!.last}); ` +
      `first answer max ${sec(run.result.firstAnswer.max)} (${v[i]!.first}); peak concurrency ${int(run.result.peakProcessingConcurrency)}; ` +
      `processor's rate: ${v[i]!.rate}; given up: ${v[i]!.givenUp}; binds: ${binding(run)}` +
      (run.deliveries
        ? `; webhooks: at prod's ${webhooksAt(run.deliveries.deployed, run.deliveries)}; at dev's ${webhooksAt(run.deliveries.devDefault, run.deliveries)}; least meeting 5 min ` +
          `${webhooksAt(run.deliveries.least, run.deliveries)}; least keeping pace ${webhooksAt(run.deliveries.pace, run.deliveries)}; ` +
          `processing with their writes ${sec(run.deliveries.processing.withDeliveriesSeconds)}`
        : ''),
  );
  const row = (label: string, f: (run: PeakRun, i: number) => string) =>
    `| ${label} | ${runs.map((run, i) => f(run, i)).join(' | ')} |`;
  const r = (run: PeakRun) => run.result;
  const c = p.costs;
  const largest = p.workload.sizes.max;
  const markdown = [
    `A discrete-event model (\`bench/peak/\`, seed ${p.seed}) of one slot: ${int(p.workload.payments)} payments in ` +
      `${int(p.workload.groups)} groups (sizes ${int(p.workload.sizes.min)} to ${int(largest)}, median ${int(p.workload.sizes.p50)}), ` +
      `started by the hourly tick, against AWS's default quotas, with the deployed settings (batches of ${p.settings.batchSize}, ` +
      `${p.settings.concurrency} charges in flight per task, fan-out ${p.settings.fanOut}, ${p.settings.startConcurrency} starts at once) ` +
      `and a processor taking ${int(p.processorRate)} charges a second across all groups (refusing the rest). ` +
      `Computed ${p.measuredAt.slice(0, 10)}${p.commit ? ` at ${p.commit}` : ''}. Per payment: ${c.callsBefore + c.callsAfter} DynamoDB calls ` +
      `(${c.sources.ddbCalls}), ${(c.cpuSeconds * 1000).toFixed(1)} ms of CPU (${c.sources.cpu}), ${c.tableWriteUnits} write units ` +
      `(${c.partitionWriteUnits} on the group's partition, ${c.merchantIndexWriteUnits} on its merchant's events partition; ${c.sources.writes}), ${c.historyEventsPerPayment} history events (${c.sources.historyEvents}), ` +
      `${c.emailsPerPayment} e-mail(s) (${c.sources.emails}). Assumed: ${p.assumptions.ddbCallSeconds * 1000} ms a DynamoDB call, ` +
      `${p.assumptions.taskOverheadSeconds * 1000} ms a Task's own overhead`,
    '',
    `| measure | ${runs.map((run) => `L = ${run.name}`).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    row(
      'time to the last answer',
      (run) => `${sec(r(run).lastAnswerSeconds)} (${min(r(run).lastAnswerSeconds)})`,
    ),
    row(
      'tightest bound; target 1.25×',
      (run, i) => `${sec(run.tightest.seconds)}, ${run.tightest.limit}; ${v[i]!.last}`,
    ),
    row(
      "a group's first answer p50 / p99 / max (target ≤ 180 s)",
      (run, i) => `${pcts(r(run).firstAnswer)}: ${v[i]!.first}`,
    ),
    row("a group's last answer p50 / p99 / max", (run) => pcts(r(run).lastAnswer)),
    row("never above the processor's rate", (_, i) => v[i]!.rate),
    row('nothing given up for throttling', (_, i) => v[i]!.givenUp),
    row(
      `peak concurrency by function (account ${int(LAMBDA_ACCOUNT_CONCURRENCY)})`,
      (run) =>
        FUNCTIONS.filter((f) => r(run).peakConcurrency[f] > 0)
          .map((f) => `${f} ${int(r(run).peakConcurrency[f])}`)
          .join(', ') +
        `; all ${int(r(run).peakProcessingConcurrency)}, least left to the API ${int(r(run).minApiHeadroom)}`,
    ),
    row(
      'throttles',
      (run) =>
        `Lambda ${int(FUNCTIONS.reduce((n, f) => n + r(run).lambdaThrottles[f], 0))}, StartExecution ${int(r(run).startThrottles)} ` +
        `(${int(r(run).startsReleased)} starts left to the due sweep), state transitions delayed ${int(r(run).transitionsDelayed)}, ` +
        `processor refusals ${int(r(run).processorRefused)}, table writes ${int(r(run).tableThrottled)}, partition writes ${int(r(run).partitionThrottled)}`,
    ),
    row(
      'payments given up (FailBatch); executions failed',
      (run) =>
        `${int(r(run).givenUp)} (Lambda throttling ${int(r(run).givenUpThrottled)}, processor refusals ${int(r(run).givenUpProcessor)}); ${r(run).executionsFailed}`,
    ),
    row('peak charges per second', (run) => int(r(run).peakChargesPerSecond)),
    row('Lambda execution time by function', (run) =>
      FUNCTIONS.filter((f) => r(run).lambdaSeconds[f] > 0)
        .map((f) => `${f} ${int(r(run).lambdaSeconds[f])} s`)
        .join(', '),
    ),
    row(
      `longest batch (the task's TimeoutSeconds: ${p.settings.authorizeBatchTimeoutSeconds} s)`,
      (run) =>
        `${sec(r(run).longestBatchSeconds)}${r(run).longestBatchSeconds > p.settings.authorizeBatchTimeoutSeconds ? ' (past it: the model does not time tasks out, so this run is out of its reach)' : ''}`,
    ),
    row(`history events of the busiest execution (quota ${int(SFN_HISTORY_EVENTS_PER_EXECUTION)})`, (run) =>
      int(r(run).maxHistoryEvents),
    ),
    row(
      'state transitions: in all; peak per second',
      (run) => `${int(r(run).transitions)}; ${int(r(run).peakTransitionsPerSecond)}`,
    ),
    row(
      `peak write units per second: a group's partition (limit ${int(DDB_PARTITION_WCU)}); the table, indexes included (new on-demand: ${int(DDB_ON_DEMAND_NEW_TABLE_WCU)})`,
      (run) => `${int(r(run).peakPartitionWcu)}; ${int(r(run).peakTableWcu)}`,
    ),
    row(
      `peak write units per second on an index partition (limit ${int(DDB_PARTITION_WCU)}): a merchant's events; one shard of ${(
        c.indexLoads ?? []
      )
        .filter((l) => l.scope === 'table')
        .map((l) => `${l.index} (${l.partitions})`)
        .join(', ')}`,
      (run) =>
        [int(r(run).peakMerchantIndexWcu), ...Object.values(r(run).peakIndexShardWcu ?? {}).map(int)].join(
          '; ',
        ),
    ),
    row('peak read units per second on a partition (BeginGroup)', (run) => int(r(run).peakPartitionRcu)),
    ...deliveryRows(runs, row),
    '',
    ...runs.map((run) => `- What binds at L = ${run.name}: ${binding(run)}.`),
    '',
    ...(runs.some((run) => run.deliveries)
      ? [
          "Webhooks (`bench/peak/delivery.ts`, `slot-deliveries.ts`): every event the slot writes (each payment's answer, each " +
            "group's `group.processing` and `group.processed`) goes the deployed way to one endpoint per merchant answering in " +
            '200 ms: the table stream (a shard per 1,000 write units of the peak, each read 4 times a second, batches of 100), ' +
            'the forwarder (SendMessageBatch by 10), the webhook queue (its event source 5 invocations at first, 300 more a ' +
            'minute, up to `webhookConcurrency`), the delivery function (batches of 10; the events and endpoints read at once; ' +
            "a payment's answer, its object's first event, attempted by the fan-out after 2 writes, a later event by its own " +
            'message after 4 calls; 4 requests to one endpoint in flight per invocation; the settle after). Assumed: a DynamoDB ' +
            'call 7 ms, a GetRecords 20 ms, a forwarder invocation 30 ms and 15 ms a SendMessageBatch, a message 50 ms from ' +
            'visible to its invocation, 2 ms of CPU a message, 6 write units a delivery (its record created and settled, ' +
            "each on the table, its endpoint's list and a due shard).",
          '',
        ]
      : []),
    `Bounds at ${runs[0]!.latencySeconds} s (seconds the slot cannot beat, whatever the service does; "configuration" ones the service can move): ` +
      runs[0]!.bounds
        .map((b) => `${b.limit}: ${sec(b.seconds)} (${b.kind}; moved by ${b.movedBy})`)
        .join('; ') +
      `. History events of the largest group at the bench's rate: ${int(largest * c.historyEventsPerPayment)} ` +
      `(quota ${int(SFN_HISTORY_EVENTS_PER_EXECUTION)}; each retried task adds about 3).` +
      ` Receipts (after the settlement cut-off, not in these times): ${int(p.workload.payments * c.emailsPerPayment)} e-mails at ` +
      `${p.settings.emailSendRate} a second (EMAIL_SEND_RATE; SES's starting quota ${SES_SEND_RATE}) take ` +
      `${((p.workload.payments * c.emailsPerPayment) / p.settings.emailSendRate / 3600).toFixed(1)} hours.`,
  ].join('\n');
  return { console: lines.join('\n'), markdown };
}
