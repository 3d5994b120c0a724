/**
 * The scaled-down peak's settings and the model's inputs from this machine's measurements
 * (bench/sections/peak-local.ts), apart from the runtime-launching code so that the unit tests can
 * import them.
 */
import type { FunctionName } from '../peak/lambda';
import type { Workload } from '../peak/inputs';
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
   * PROCESS_CONCURRENCY charges (payments / concurrency), seconds.
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

/**
 * The model's local inputs from the calibration: its DynamoDB Local call, StartExecution and Task
 * overhead as measured; a charge's time less its DynamoDB calls and the processor's latency is the
 * charge's CPU (and its waits for the event loop), which the model adds to every charge.
 */
export function predictionInputs(measured: PeakLocalMeasurement, callsPerPayment: number) {
  const c = measured.costs;
  return {
    ddbCallSeconds: c.ddbCallSeconds,
    taskOverheadSeconds: c.taskOverheadSeconds,
    sfnCallSeconds: c.sfnCallSeconds,
    cpuSeconds: round(
      Math.max(0, c.chargeSeconds - measured.latencyMs / 1000 - callsPerPayment * c.ddbCallSeconds),
      4,
    ),
  };
}
