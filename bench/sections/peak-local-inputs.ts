/**
 * The scaled-down peak's settings and the model's inputs from this machine's measurements
 * (bench/sections/peak-local.ts), apart from the runtime-launching code so that the unit tests can
 * import them.
 */
import type { PaymentCosts, ServiceSettings, Workload } from '../peak/inputs';
import type { FunctionName } from '../peak/lambda';
import { runModel, type ModelInput } from '../peak/model';
import { round } from '../support/load';
import type { Percentiles } from '../peak/stats';

/**
 * The scaled-down peak: 100 groups, 8,000 payments in all, sizes drawn as the busiest slot's small
 * groups are (log-uniform in 20-500, then scaled to the total: 20-264, median 45 for seed 1). The
 * issue suggests 300 groups of 20-500; at the cap below this machine answers some 30-60 payments a
 * second, so 300 such groups (about 45,000 payments) would take 15-25 minutes; 8,000 take about 5
 * and still put 100 groups against the cap at once. AuthorizeBatch capped at 2 (32 charges in flight
 * for the whole slot) with the processor answering in 0.5 s: the cap, not this machine's CPU, binds,
 * as the concurrency share would in the cloud.
 */
export const PEAK_LOCAL = {
  groups: 100,
  payments: 8_000,
  small: { min: 20, max: 500 },
  caps: { AuthorizeBatch: 2 } as Partial<Record<FunctionName, number>>,
  latencyMs: 500,
  /** The group processed alone first: two ranges of one batch each, at the cap. */
  calibrationPayments: 500,
  payors: 25,
  /** Past this after the tick the section fails rather than hold the bench. */
  limitMs: 15 * 60_000,
} as const;

export const capSetting = (caps: Partial<Record<string, number>>) =>
  Object.entries(caps)
    .map(([fn, n]) => `${fn}=${n}`)
    .join(',');

/** What the model needs from this machine, measured on one group alone. */
export interface LocalCosts {
  /** A DynamoDB Local call's mean time (the SDK's send to its answer), seconds. */
  ddbCallSeconds: number;
  /** A StartExecution's mean time on the local endpoint, seconds. */
  sfnCallSeconds: number;
  /**
   * One charge's time in an AuthorizeBatch: the batches' handler time over their rounds of
   * PROCESS_CONCURRENCY charges (calibrationChargeSeconds), seconds. It holds everything a charge
   * waits for, the processor's rate's tokens included.
   */
  chargeSeconds: number;
  /** The local Step Functions' own time per Task (the path's time less its handlers'), seconds. */
  taskOverheadSeconds: number;
  /** CPU ms per payment of the runtime (node) and of DynamoDB Local (java) while it ran. */
  cpuMsPerPayment: { runtime: number; dynamodb: number };
}

export interface PeakLocalMeasurement {
  workload: { groups: number; payments: number; sizes: Percentiles & { min: number } };
  caps: Partial<Record<FunctionName, number>>;
  latencyMs: number;
  costs: LocalCosts;
  createSeconds: number;
  /** From the tick to the last answer; NaN if a payment was never answered. */
  lastAnswerSeconds: number;
  firstAnswer: Percentiles;
  lastAnswer: Percentiles;
  answered: number;
  /** Payments charged at the processor more than once (its ledger), and answered Failed (given up). */
  chargedTwice: number;
  failed: number;
  groupsGivenUp: number;
  executionsFailed: number;
  functions: Record<
    string,
    { invocations: number; throttles: number; peakConcurrency: number; cap?: number }
  >;
  /** GET of a group while the slot ran, ms (8 at once, every 2 s, the groups not yet processed); errors: answers other than 200. */
  apiGetMs: Percentiles & { count: number; errors: number };
  /** The slot's own mean DynamoDB Local call time, seconds (the calibration's is in costs). */
  slotDdbCallSeconds: number;
  cores: { runtime: number; dynamodb: number; machine: number; foreign: number };
  loadAverage: { before: number; after: number };
}

export const LOCAL_WORKLOAD: Workload = {
  payments: PEAK_LOCAL.payments,
  groups: PEAK_LOCAL.groups,
  large: { count: 0, size: 0 },
  medium: { count: 0, min: 0, max: 0 },
  small: PEAK_LOCAL.small,
};

/** The model's round trips on this machine, from the calibration (ModelInput `region`). */
interface LocalRegion {
  ddbCallSeconds: number;
  taskOverheadSeconds: number;
  sfnCallSeconds: number;
}

/** The busiest slot's model (bench/peak/) on groups `sizes` with this machine's costs and the cap. */
export function localModelInput(
  sizes: readonly number[],
  seed: number,
  region: LocalRegion,
  costs: PaymentCosts,
  service: ServiceSettings,
): ModelInput {
  return {
    sizes,
    seed,
    latencySeconds: PEAK_LOCAL.latencyMs / 1000,
    // The sandbox has no rate limit; the service's limiter runs at its default PROCESSOR_RATE
    // (the local runtime sets none), which 32 charges in flight never reach.
    processorRate: 1e12,
    limiterRate: service.processorRate,
    costs,
    service,
    reserved: PEAK_LOCAL.caps,
    region,
  };
}

/**
 * A charge's time in an AuthorizeBatch as the calibration defines it: the batches' handler time
 * over their rounds of PROCESS_CONCURRENCY charges. The group's first PROCESS_FIRST_BATCH_SIZE
 * payments are charged by AuthorizeFirstBatch, whose time is not in `batchBusySeconds`.
 */
export function calibrationChargeSeconds(batchBusySeconds: number, service: ServiceSettings): number {
  const throughBatches = PEAK_LOCAL.calibrationPayments - service.firstBatchSize;
  return batchBusySeconds / (throughBatches / service.concurrency);
}

/**
 * A Task's own time in the local Step Functions along the calibration group's path (BeginGroup,
 * the first range's AuthorizeFirstBatch and its batches, CompleteGroup): the path's time less its
 * handlers', over its Tasks. The first range's AuthorizeFirstBatch is on the path: its handler
 * time is the path's, and it is one Task more.
 */
export function taskOverheadSeconds(path: {
  spanSeconds: number;
  beginGroupSeconds: number;
  firstBatchSeconds: number;
  batchBusySeconds: number;
  completeGroupSeconds: number;
  batches: number;
  ranges: number;
}): number {
  const handlers =
    path.beginGroupSeconds +
    path.firstBatchSeconds +
    path.batchBusySeconds / path.ranges +
    path.completeGroupSeconds;
  const tasks = 3 + path.batches / path.ranges;
  return Math.max(0, (path.spanSeconds - handlers) / tasks);
}

/** Seeds the model's calibration run is averaged over (its jitter and the rate's spread). */
const CALIBRATION_SEEDS = 16;
/** The step of the CPU the fit tries, seconds. */
const CPU_STEP_SECONDS = 0.001;

/**
 * The model's own charge time in the calibration's conditions (the calibration group alone under
 * the cap), as the calibration measures it, for a charge's CPU `cpuSeconds`; averaged over
 * CALIBRATION_SEEDS seeds.
 */
export function modelledChargeSeconds(
  cpuSeconds: number,
  region: LocalRegion,
  costs: PaymentCosts,
  service: ServiceSettings,
): number {
  let sum = 0;
  for (let seed = 1; seed <= CALIBRATION_SEEDS; seed++) {
    const input = localModelInput(
      [PEAK_LOCAL.calibrationPayments],
      seed,
      region,
      { ...costs, cpuSeconds },
      service,
    );
    sum += calibrationChargeSeconds(runModel(input).lambdaSeconds.AuthorizeBatch, service);
  }
  return sum / CALIBRATION_SEEDS;
}

/**
 * The model's local inputs from the calibration: its DynamoDB Local call, StartExecution and Task
 * overhead as measured, and a charge's CPU (and its waits for the event loop): what the measured
 * charge time leaves once everything the model itself puts in a charge is taken off. That is not
 * only the processor's latency and the charge's DynamoDB calls: each charge first takes a token of
 * the processor's rate (core/processor-rate.ts; the model's `tokensFor`), the chunk's conditional
 * writes and, past TOKEN_MARGIN_MS before a second's end, a wait into the next second, and a batch
 * reads its payments first and ends with a partial round. The measured charge time holds all of
 * them, so the CPU is fitted by running the model on the calibration group itself: the CPU (to
 * CPU_STEP_SECONDS) whose modelled charge time comes nearest the measured one. Subtracting only the
 * latency and the calls counted the limiter's time twice (in the CPU, and again by the model).
 */
export function predictionInputs(
  measured: Pick<PeakLocalMeasurement, 'costs'>,
  costs: PaymentCosts,
  service: ServiceSettings,
): LocalRegion & { cpuSeconds: number } {
  const c = measured.costs;
  const region = {
    ddbCallSeconds: c.ddbCallSeconds,
    taskOverheadSeconds: c.taskOverheadSeconds,
    sfnCallSeconds: c.sfnCallSeconds,
  };
  // A charge no slower than the model's with no CPU leaves none (the model's charge time is not
  // strictly monotonic in the CPU, by a few milliseconds, where a second's boundary falls).
  if (c.chargeSeconds <= modelledChargeSeconds(0, region, costs, service))
    return { ...region, cpuSeconds: 0 };
  // Coarse steps of ten, then every step around the nearest.
  const nearest = (from: number, to: number, step: number) => {
    let best = { cpuSeconds: 0, off: Infinity };
    for (let i = Math.max(0, from); i <= to; i += step) {
      const cpuSeconds = i * CPU_STEP_SECONDS;
      const off = Math.abs(modelledChargeSeconds(cpuSeconds, region, costs, service) - c.chargeSeconds);
      if (off < best.off) best = { cpuSeconds, off };
    }
    return best;
  };
  const steps = Math.floor(c.chargeSeconds / CPU_STEP_SECONDS);
  const coarse = Math.round(nearest(0, steps, 10).cpuSeconds / CPU_STEP_SECONDS);
  const best = nearest(coarse - 10, Math.min(steps, coarse + 10), 1);
  return { ...region, cpuSeconds: round(best.cpuSeconds, 4) };
}
