/**
 * Closed-loop load: a fixed number of workers, each with one request in flight. A slice is a
 * short ramp (not recorded) then a measured window; a measurement is several slices, merged.
 * Latency is per operation, end to end as the caller sees it.
 */
import { sleep } from '../../lambdas/shared/clock';
import { cpuSampler, type CpuUsage } from './cpu';

/** One operation; resolves to an error description, or undefined when it succeeded. */
export type Operation = (worker: number, seq: number) => Promise<string | undefined>;

interface SliceOptions {
  concurrency: number;
  /** Load before the measured window starts (not recorded). */
  rampMs: number;
  durationMs: number;
  /** Processes whose CPU time is accounted during the window (besides this one). */
  cpuPids?: number[];
}

export interface Slice {
  latencies: Float64Array;
  errors: number;
  errorSamples: Record<string, number>;
  elapsedMs: number;
  usage: CpuUsage;
  /** Every operation run, ramp and errors included. */
  operations: number;
  windowUs: [number, number];
}

export interface LoadResult {
  /** Successful operations in the measured windows (errors are counted apart). */
  requests: number;
  /** Every operation run, ramps and errors included (for per-operation call counts). */
  operations: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  /** Distinct error descriptions with their counts (first 5). */
  errorSamples: Record<string, number>;
  /**
   * CPU milliseconds per successful operation during the measured windows, by process kind:
   * bench, runtime, dynamodb, other (their sum: ours; without dynamodb.jit, DynamoDB Local's
   * JIT compilation: steady), `<kind>.sys` (kernel part), runtime.main (its JavaScript thread),
   * machine, foreign (machine minus ours: work that is not the bench's).
   */
  cpuMsPerOp: Record<string, number>;
  /** Average busy cores during the measured windows, by process kind (`foreign`: not the bench's). */
  cores: Record<string, number>;
  /** The measured windows on the monotonic clock, in µs (matches V8 CPU profile timestamps). */
  windowsUs: [number, number][];
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** `n` rounded to `digits` decimals. */
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function runSlice(op: Operation, options: SliceOptions): Promise<Slice> {
  let latencies = new Float64Array(1 << 14);
  let recorded = 0;
  let errors = 0;
  const errorSamples: Record<string, number> = {};
  let recording = false;
  let stopping = false;
  let seq = 0;

  const worker = async (w: number) => {
    while (!stopping) {
      const started = performance.now();
      let error: string | undefined;
      try {
        error = await op(w, seq++);
      } catch (e) {
        error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      }
      if (!recording) continue;
      if (error !== undefined) {
        errors++;
        if (error in errorSamples || Object.keys(errorSamples).length < 5) {
          errorSamples[error] = (errorSamples[error] ?? 0) + 1;
        }
        continue;
      }
      if (recorded === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[recorded++] = performance.now() - started;
    }
  };

  const workers = Array.from({ length: options.concurrency }, (_, w) => worker(w));
  await sleep(options.rampMs);
  const cpu = cpuSampler(options.cpuPids ?? []);
  const started = performance.now();
  const startUs = monotonicUs();
  recording = options.durationMs > 0;
  await sleep(options.durationMs);
  recording = false;
  const elapsedMs = performance.now() - started;
  const endUs = monotonicUs();
  const usage = cpu.stop();
  stopping = true;
  await Promise.all(workers);
  return {
    latencies: latencies.slice(0, recorded),
    errors,
    errorSamples,
    elapsedMs,
    usage,
    operations: seq,
    windowUs: [startUs, endUs],
  };
}

/** The bench's own processes (load generator or raw client, runtime, DynamoDB Local). */
const OURS = ['bench', 'runtime', 'dynamodb', 'other'];

/** CPU ms per successful operation of one slice, all our processes, DynamoDB Local's JIT left out. */
export function steadyCpuPerOp(slice: Slice): number {
  const ours = OURS.reduce((n, k) => n + (slice.usage[k] ?? 0), 0);
  return (ours - (slice.usage['dynamodb.jit'] ?? 0)) / Math.max(slice.latencies.length, 1);
}

export function summarize(slices: Slice[]): LoadResult {
  const total = slices.reduce((n, s) => n + s.latencies.length, 0);
  const sorted = new Float64Array(total);
  let at = 0;
  for (const s of slices) {
    sorted.set(s.latencies, at);
    at += s.latencies.length;
  }
  sorted.sort();
  const elapsedMs = slices.reduce((n, s) => n + s.elapsedMs, 0);
  const usage: CpuUsage = {};
  const errorSamples: Record<string, number> = {};
  for (const s of slices) {
    for (const [k, ms] of Object.entries(s.usage)) usage[k] = (usage[k] ?? 0) + ms;
    for (const [k, n] of Object.entries(s.errorSamples)) errorSamples[k] = (errorSamples[k] ?? 0) + n;
  }
  // All CPU the bench's own processes used (load generator or raw client, runtime, DynamoDB Local),
  // and the same without DynamoDB Local's JIT compilation (a warm-up cost, see cpu.ts).
  usage.ours = OURS.reduce((n, k) => n + (usage[k] ?? 0), 0);
  usage.steady = usage.ours - (usage['dynamodb.jit'] ?? 0);
  const ok = Math.max(total, 1);
  return {
    requests: total,
    operations: slices.reduce((n, s) => n + s.operations, 0),
    rps: round((total / Math.max(elapsedMs, 1)) * 1000, 1),
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? NaN),
    errors: slices.reduce((n, s) => n + s.errors, 0),
    errorSamples,
    cpuMsPerOp: Object.fromEntries(Object.entries(usage).map(([k, ms]) => [k, round(ms / ok, 3)])),
    cores: Object.fromEntries(
      Object.entries(usage).map(([k, ms]) => [k, round(ms / Math.max(elapsedMs, 1), 2)]),
    ),
    windowsUs: slices.map((s) => s.windowUs),
  };
}
