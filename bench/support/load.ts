/**
 * Closed-loop load: a fixed number of workers, each with one request in flight, for a warm-up
 * (not recorded) and then a fixed measured duration. Latency is per operation, end to end as the
 * caller sees it.
 */
import { cpuSampler, type CpuUsage } from './cpu';

/** One operation; resolves to an error description, or undefined when it succeeded. */
export type Operation = (worker: number, seq: number) => Promise<string | undefined>;

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Processes whose CPU time is accounted during the measured window (besides this one). */
  cpuPids?: number[];
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  /** Distinct error descriptions with their counts (first 5). */
  errorSamples: Record<string, number>;
  /** CPU milliseconds per successful operation, by process kind, during the measured window. */
  cpuMsPerOp: Record<string, number>;
  /** Average busy cores during the measured window, by process kind. */
  cores: Record<string, number>;
}

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function runLoad(op: Operation, options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
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
  await new Promise((r) => setTimeout(r, options.warmupMs));
  const cpu = cpuSampler(options.cpuPids ?? []);
  const windowStart = performance.now();
  recording = true;
  await new Promise((r) => setTimeout(r, options.durationMs));
  recording = false;
  const elapsedMs = performance.now() - windowStart;
  const usage: CpuUsage = cpu.stop();
  stopping = true;
  await Promise.all(workers);

  const sorted = latencies.slice(0, recorded).sort();
  const ok = Math.max(recorded, 1);
  return {
    requests: recorded,
    rps: round((recorded / elapsedMs) * 1000, 1),
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? NaN),
    errors,
    errorSamples,
    cpuMsPerOp: Object.fromEntries(Object.entries(usage).map(([k, ms]) => [k, round(ms / ok, 3)])),
    cores: Object.fromEntries(Object.entries(usage).map(([k, ms]) => [k, round(ms / elapsedMs, 2)])),
  };
}
