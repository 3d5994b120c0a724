/**
 * Processing under processor latency (issue 10, item 1): one group of N payments (10,000) through
 * the local state machine with the sandbox answering every call after SANDBOX_LATENCY_MS = 0 and
 * then 300 ms, each in a runtime of its own (the setting is read when the functions load), started
 * the same way and warmed up the same way. Target: at 300 ms the group goes at >= 70% of the 0 ms
 * payments/s, which only the fan-out over key ranges makes possible (one loop of batches with 16
 * charges in flight tops out at 16 / 0.3 s = 53 payments/s).
 *
 * The bench's own runtime is left idle meanwhile; the two runtimes run one after the other.
 */
import { rangePlan } from '../../lambdas/domain/processing';
import { loadConfig } from '../../lambdas/shared/config';
import { createContext, type BenchContext } from '../support/context';
import { itemClasses, type ItemClass } from '../support/item-size';
import { round } from '../support/load';
import { startBenchRuntime } from '../support/runtime';
import { createGroup, createPayors, perPayment, stateMachineRun } from './processing-run';
import type { CustomSection, Results } from './section';

const LATENCIES_MS = [0, 300] as const;
const PAYORS = 25;
const WARM_UP = 500;
const LATENCY_TARGET = 0.7;

interface LatencyRun {
  latencyMs: number;
  payments: number;
  answered: number;
  approved: number;
  seconds: number;
  paymentsPerSecond: number;
  batches: number;
  historyEvents: number;
  historyEventsPerPayment: number;
  maxPayloadBytes: number;
  retries: number;
  executionStatus: string;
  /** The runtime's DynamoDB calls per payment while the group was processed, by command. */
  ddbCallsPerPayment: Record<string, number>;
  /** Where its writes landed, per payment (bench/support/count-call.ts: `write.<class>[.tx]`, `index.<class>`). */
  writesPerPayment: Record<string, number>;
  /** The table's items after the run, sized by class (bench/support/item-size.ts): what each write weighs. */
  itemClasses: Record<string, ItemClass>;
}

interface LatencyResult {
  runs: LatencyRun[];
  batchSize: number;
  concurrencyPerTask: number;
  fanOut: number;
  ranges: number;
  /** payments/s at the highest latency over payments/s at 0 ms. */
  ratio: number;
  target: number;
}

/** A fresh runtime with this latency: payors, a warm-up group, then the measured group. */
async function runAt(base: BenchContext, latencyMs: number, n: number): Promise<LatencyRun> {
  const runtime = await startBenchRuntime({
    env: {
      SANDBOX_SETTLEMENT_SECONDS: String(base.config.settlementSeconds),
      SANDBOX_LATENCY_MS: String(latencyMs),
    },
  });
  // If the bench is stopped meanwhile (its time limit, Ctrl-C), this runtime goes with it; its
  // DynamoDB Local's watchdog then ends the Java process.
  const kill = () => process.kill(runtime.pid, 'SIGKILL');
  process.once('exit', kill);
  try {
    const ctx = await createContext(base.config, runtime);
    const payors = await createPayors(ctx, PAYORS);
    // The warm-up first: a fresh DynamoDB Local compiles its hot paths on it, so that the create of
    // the big group stays within the API's 29 s on a loaded machine.
    const warm = await createGroup(ctx, payors, WARM_UP, 500);
    await stateMachineRun(ctx, warm.groupId);
    const group = await createGroup(ctx, payors, n, 1);
    const run = await stateMachineRun(ctx, group.groupId);
    const written = Object.keys(run.census)
      .filter((k) => k.startsWith('write.') && (run.census[k] ?? 0) > 0)
      .map((k) => k.split('.')[1]!);
    const items = await itemClasses(ctx.db, runtime.tableName, [...new Set(written)]);
    ctx.api.close();
    ctx.db.destroy();
    const stats = run.execution.stats;
    const result: LatencyRun = {
      latencyMs,
      payments: n,
      answered: run.answeredCount,
      approved: run.summary?.approvedCount ?? 0,
      seconds: round(run.seconds),
      paymentsPerSecond: round(run.answeredCount / run.seconds, 1),
      batches: run.output.batches ?? 0,
      historyEvents: stats.historyEvents,
      historyEventsPerPayment: round(stats.historyEvents / n, 4),
      maxPayloadBytes: stats.maxPayloadBytes,
      retries: stats.retries,
      executionStatus: run.execution.status,
      ddbCallsPerPayment: Object.fromEntries(
        Object.entries(run.census)
          .filter(([k, c]) => c > 0 && !k.includes('.'))
          .map(([k, c]) => [k, round(c / n, 3)]),
      ),
      writesPerPayment: perPayment(run.census, n, true),
      itemClasses: items,
    };
    console.log(
      `  processing-latency: ${latencyMs} ms: ${n} payments in ${result.seconds} s ` +
        `(${result.paymentsPerSecond}/s, ${result.batches} batches, ${result.executionStatus})`,
    );
    return result;
  } catch (error) {
    console.error(
      `  processing-latency: the ${latencyMs} ms runtime's last output:\n${runtime.output().slice(-4000)}`,
    );
    throw error;
  } finally {
    process.off('exit', kill);
    await runtime.stop();
  }
}

async function run(ctx: BenchContext): Promise<Results> {
  const n = ctx.config.processingPayments;
  // The runtimes' own settings: their defaults, unless the bench's environment sets them.
  const settings = loadConfig({ TABLE_NAME: 'bench', ...process.env });
  const batchSize = settings.processBatchSize;
  const fanOut = settings.processFanOut;
  console.log(
    `  processing-latency: a group of ${n} payments at SANDBOX_LATENCY_MS ${LATENCIES_MS.join(' then ')}, ` +
      `each in a runtime of its own ...`,
  );
  const runs: LatencyRun[] = [];
  for (const ms of LATENCIES_MS) runs.push(await runAt(ctx, ms, n));
  const [fast, slow] = [runs[0]!, runs[runs.length - 1]!];
  const result: LatencyResult = {
    runs,
    batchSize,
    concurrencyPerTask: settings.processConcurrency,
    fanOut,
    ranges: rangePlan(n, batchSize, fanOut).ranges,
    ratio: round(slow.paymentsPerSecond / fast.paymentsPerSecond, 3),
    target: LATENCY_TARGET,
  };
  return { processingLatency: result };
}

const pct = (r: number) => `${(r * 100).toFixed(0)}%`;
const calls = (x: LatencyRun) =>
  Object.entries(x.ddbCallsPerPayment ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}×${v}`)
    .join(' ') || '-';
/** Where a run's writes landed, per payment (`write.GROUP.tx×1` ...), and what its items weigh. */
const writes = (x: LatencyRun) =>
  Object.entries(x.writesPerPayment ?? {})
    .map(([k, v]) => `${k}×${v}`)
    .join(' ') || '-';
const weights = (x: LatencyRun) =>
  Object.entries(x.itemClasses ?? {})
    .map(
      ([k, c]) =>
        `${k} ${c.meanBytes} B (${c.writeUnits} units, ${c.indexKeys} index keys; ${c.items} sampled)`,
    )
    .join(', ') || '-';

function report(results: Results) {
  const r = results.processingLatency as LatencyResult | undefined;
  if (!r) return undefined;
  const valid = r.runs.every((x) => x.answered === x.payments && x.executionStatus === 'SUCCEEDED');
  const verdict = !valid ? 'not measured (a run is incomplete)' : r.ratio >= r.target ? 'met' : 'NOT met';
  const inFlight = r.ranges * r.concurrencyPerTask;
  const [fast, slow] = [r.runs[0]!, r.runs[r.runs.length - 1]!];
  const concurrency =
    `${r.ranges} key ranges at once (PROCESS_FAN_OUT ${r.fanOut}) × ${r.concurrencyPerTask} charges in flight ` +
    `per task (PROCESS_CONCURRENCY) = ${inFlight}, batches of ${r.batchSize}`;
  const text = [
    `processing at ${slow.latencyMs} ms processor latency: ${slow.paymentsPerSecond} payments/s vs ` +
      `${fast.paymentsPerSecond} at ${fast.latencyMs} ms: ${pct(r.ratio)}, target >= ${pct(r.target)}: ${verdict}`,
    `  ${concurrency}`,
    ...r.runs.map(
      (x) =>
        `  ${x.latencyMs} ms: ${x.answered}/${x.payments} answered in ${x.seconds} s, ${x.batches} batches, ` +
        `history events ${x.historyEvents} (${x.historyEventsPerPayment}/payment), largest payload ` +
        `${x.maxPayloadBytes} bytes, ${x.retries} retries, ${x.executionStatus}`,
    ),
    `  DynamoDB calls/payment: ${r.runs.map((x) => `${x.latencyMs} ms ${calls(x)}`).join('; ')}`,
    `  writes/payment by partition (${slow.latencyMs} ms): ${writes(slow)}`,
    `  items by partition class (${slow.latencyMs} ms): ${weights(slow)}`,
  ].join('\n');
  const markdown = [
    `One group of ${fast.payments.toLocaleString('en-US')} payments processed by the local state machine with the ` +
      `sandbox processor answering every call after \`SANDBOX_LATENCY_MS\` = ${r.runs.map((x) => x.latencyMs).join(' and ')} ms, ` +
      `each in a runtime of its own (same start, a warm-up group of ${WARM_UP} payments first), timed from ` +
      `\`POST .../process-payments\` to the group's status \`processed\`. Concurrency: ${concurrency}.`,
    '',
    '| processor latency | payments/s | seconds | batches | history events (per payment) | largest state payload | retries |',
    '|---|---|---|---|---|---|---|',
    ...r.runs.map(
      (x) =>
        `| ${x.latencyMs} ms | ${x.paymentsPerSecond} | ${x.seconds} | ${x.batches} | ` +
        `${x.historyEvents} (${x.historyEventsPerPayment}) | ${x.maxPayloadBytes} bytes | ${x.retries} |`,
    ),
    '',
    `DynamoDB calls per payment (the runtime's, trigger and polls included): ` +
      `${r.runs.map((x) => `${x.latencyMs} ms ${calls(x)}`).join('; ')}. At ${slow.latencyMs} ms: ${pct(r.ratio)} of the ${fast.latencyMs} ms payments/s, target >= ${pct(r.target)}: ` +
      `${verdict}. Without the fan-out (one range) the ${slow.latencyMs} ms run could not pass ` +
      `${Math.round(r.concurrencyPerTask / (slow.latencyMs / 1000))} payments/s.`,
    '',
    `Where a payment's writes land at ${slow.latencyMs} ms (\`write.<partition class>\`, \`.tx\` inside a transaction, ` +
      `which DynamoDB bills twice; \`index.<class>\` an index entry a write sets): ${writes(slow)}. ` +
      `The table's items after that run, sized by class: ${weights(slow)}. The busiest slot's model costs a ` +
      `payment's writes from these two (bench/peak/inputs.ts \`paymentCosts\`).`,
  ].join('\n');
  return { console: text, markdown };
}

export const processingLatency: CustomSection = {
  kind: 'custom',
  name: 'processing-latency',
  title: 'Processing a group under processor latency',
  run,
  report,
};
