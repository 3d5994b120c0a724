/**
 * A bench section: one named measurement, run with `npm run bench` (all sections) or
 * `npm run bench -- --only=<name>[,<name>]`. A section returns the part of results.json it owns
 * (merged two levels deep, so `api.createPayment` and `api.listGroups` can come from two
 * sections) and renders its own report from results.json, so results kept from an earlier run
 * of another section still appear in the report.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BenchConfig, BenchContext } from '../support/context';
import type { LoadResult, Operation } from '../support/load';
import type { Results } from '../support/results';

export type { Results };

interface Section {
  readonly name: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<Results>;
}

/** An API-versus-raw-DynamoDB workload: reported together in one table. */
export interface CompareSection extends Section {
  readonly kind: 'compare';
  /** Key under `api`, `raw` and `ratio` in results.json. */
  readonly key: string;
  /** What one operation is, for the report. */
  readonly operation: string;
  /** The pass mark of its CPU-cost ratio (issue 24 item 6: the list 85%, create-payment 90%). */
  readonly cpuTarget?: number;
}

/** Other sections (e.g. the state machine) render their own markdown and console lines. */
export interface CustomSection extends Section {
  readonly kind: 'custom';
  /**
   * `--model-only`: what the section computes from its saved measurement (bench/results.json)
   * again, without the runtime (a section that holds a model beside its measurement).
   */
  remodel?(): Promise<Results>;
  report(results: Results): { console: string; markdown: string } | undefined;
}

/**
 * A model (e.g. the busiest slot's): computed from the configuration and earlier results, without
 * the local runtime, which the bench does not start when only such sections run.
 */
export interface ModelSection {
  readonly kind: 'model';
  readonly name: string;
  readonly title: string;
  run(config: BenchConfig): Promise<Results>;
  report(results: Results): { console: string; markdown: string } | undefined;
}

export type AnySection = CompareSection | CustomSection | ModelSection;

/** The pass mark of an API-versus-raw ratio (docs/operating.md "Benchmark": "API >= 70% of raw DynamoDB Local"). */
export const RATIO_TARGET = 0.7;

/**
 * The runtime's CPU per API request, in µs: `request` is all it spent on one (the local API
 * Gateway and authorizer, the middleware, the handler and its SDK calls), its background work
 * (the stream reader, also running on the raw side) left out; `beyondCalls` is what is left of
 * it once the same DynamoDB calls made by the raw side's SDK client (its CPU in the bench process)
 * are taken off: the API path's own cost (HTTP, authorization, validation, serialisation, logging).
 */
function handlerCpu(
  api: Pick<LoadResult, 'cpuMsPerOp'>,
  raw: Pick<LoadResult, 'cpuMsPerOp'>,
): { request: number; beyondCalls: number } | null {
  const a = api.cpuMsPerOp;
  const r = raw.cpuMsPerOp;
  if (a.runtime === undefined || r.bench === undefined) return null;
  const request = Math.round((a.runtime - (r.runtime ?? 0)) * 1000);
  return { request, beyondCalls: Math.round(request - r.bench * 1000) };
}

/** Median, lowest and highest of per-round ratios (3 decimals). */
export function spread(ratios: readonly number[]): {
  median: number;
  min: number;
  max: number;
  rounds: number;
} {
  const sorted = [...ratios].sort((a, b) => a - b);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return {
    median: r3(median),
    min: r3(sorted[0] ?? NaN),
    max: r3(sorted.at(-1) ?? NaN),
    rounds: sorted.length,
  };
}

export function compareSection(spec: {
  name: string;
  key: string;
  title: string;
  operation: string;
  cpuTarget?: number;
  /**
   * Prepares fixtures and returns the two operations: one API request, and the same DynamoDB
   * calls through `db` (the raw client, counted).
   */
  prepare(ctx: BenchContext): Promise<{
    api: Operation;
    raw(db: DynamoDBDocumentClient): Operation;
    notes?: Results;
  }>;
}): CompareSection {
  return {
    kind: 'compare',
    name: spec.name,
    key: spec.key,
    title: spec.title,
    operation: spec.operation,
    ...(spec.cpuTarget !== undefined && { cpuTarget: spec.cpuTarget }),
    async run(ctx) {
      const { api: apiOp, raw: rawOp, notes } = await spec.prepare(ctx);
      const { warmupSeconds, durationSeconds, rounds } = ctx.config;
      console.log(
        `  ${spec.key}: ${warmupSeconds} s warm-up per side, then ${rounds} alternating rounds, ` +
          `${durationSeconds} s measured per side ...`,
      );
      const { api, raw, cpuRatioByRound } = await ctx.measurePair(apiOp, rawOp);
      const ratio = raw.rps > 0 ? Math.round((api.rps / raw.rps) * 1000) / 1000 : null;
      // Throughput ratio on a CPU-bound machine with nothing else running, once DynamoDB Local's
      // JIT is done: CPU per request, all the bench's processes, JIT compilation left out.
      const cpuRatio = api.cpuMsPerOp.steady
        ? Math.round((raw.cpuMsPerOp.steady! / api.cpuMsPerOp.steady) * 1000) / 1000
        : null;
      return {
        api: { [spec.key]: api },
        raw: { [spec.key]: raw },
        ratio: { [spec.key]: ratio },
        cpuCostRatio: { [spec.key]: cpuRatio },
        cpuCostRatioRounds: { [spec.key]: spread(cpuRatioByRound) },
        handlerCpuUs: { [spec.key]: handlerCpu(api, raw) },
        ...(notes && { notes: { [spec.key]: notes } }),
      };
    },
  };
}
