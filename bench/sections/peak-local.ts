/**
 * The busiest slot's model checked against the local runtime (issue 24, item 5): the scaled-down
 * peak measured on this machine (peak-local-run.ts), then the same model as `peak-slot`
 * (bench/peak/) run on the same workload, the same cap and this machine's measured costs instead of
 * the Region's. Target: the model's time to the last answer within 25% of the measured one.
 */
import { groupSizes, paymentCosts, serviceSettings, type ServiceSettings } from '../peak/inputs';
import { runModel } from '../peak/model';
import type { ModelResult, Percentiles } from '../peak/stats';
import type { BenchContext } from '../support/context';
import { round } from '../support/load';
import { readResults } from '../support/results';
import {
  capSetting,
  LOCAL_WORKLOAD,
  localModelInput,
  PEAK_LOCAL,
  predictionInputs,
  type PeakLocalMeasurement,
} from './peak-local-inputs';
import { measurePeakLocal } from './peak-local-run';
import type { CustomSection, Results } from './section';

/** The issue's target: the prediction within 25% of the measurement. */
const PREDICTION_TARGET = 0.25;

type ModelView = Pick<
  ModelResult,
  | 'lastAnswerSeconds'
  | 'firstAnswer'
  | 'lastAnswer'
  | 'answered'
  | 'givenUp'
  | 'givenUpThrottled'
  | 'executionsFailed'
  | 'peakConcurrency'
  | 'lambdaThrottles'
  | 'lambdaInvocations'
>;

interface PeakLocalResult {
  measuredAt: string;
  seed: number;
  measured: PeakLocalMeasurement;
  /** The model's inputs from this machine: a charge's CPU and waits, derived from the calibration batch. */
  modelInputs: {
    ddbCallSeconds: number;
    taskOverheadSeconds: number;
    sfnCallSeconds: number;
    cpuSeconds: number;
  };
  model: ModelView;
  /** The model's time to the last answer over the measured one. */
  ratio: number;
  /** The model again with the slot's own mean DynamoDB Local call time (known only afterwards). */
  hindcast: ModelView;
  hindcastRatio: number;
  target: number;
}

/** The busiest slot's model on the scaled-down workload, with this machine's costs and the cap. */
function predict(
  inputs: ReturnType<typeof predictionInputs>,
  sizes: readonly number[],
  seed: number,
  service: ServiceSettings,
): ModelResult {
  const { cpuSeconds, ...region } = inputs;
  return runModel(
    localModelInput(sizes, seed, region, { ...paymentCosts(readResults()), cpuSeconds }, service),
  );
}

const viewOf = (model: ModelResult): ModelView => ({
  lastAnswerSeconds: round(model.lastAnswerSeconds, 1),
  firstAnswer: model.firstAnswer,
  lastAnswer: model.lastAnswer,
  answered: model.answered,
  givenUp: model.givenUp,
  givenUpThrottled: model.givenUpThrottled,
  executionsFailed: model.executionsFailed,
  peakConcurrency: model.peakConcurrency,
  lambdaThrottles: model.lambdaThrottles,
  lambdaInvocations: model.lambdaInvocations,
});

/** The model's prediction for a measurement (and its hindcast with the slot's own call time). */
function modelled(measured: PeakLocalMeasurement, seed: number, measuredAt: string): PeakLocalResult {
  const sizes = groupSizes(seed, LOCAL_WORKLOAD);
  const service = serviceSettings();
  const modelInputs = predictionInputs(measured, paymentCosts(readResults()), service);
  const model = viewOf(predict(modelInputs, sizes, seed, service));
  // The same model with the slot's own DynamoDB Local call time: how much of the gap is the
  // machine's load moving between the calibration and the slot.
  const hindcastInputs = { ...modelInputs, ddbCallSeconds: measured.slotDdbCallSeconds };
  const hindcast = viewOf(predict(hindcastInputs, sizes, seed, service));
  const ratioOf = (v: ModelView) => round(v.lastAnswerSeconds / measured.lastAnswerSeconds, 3);
  const result: PeakLocalResult = {
    measuredAt,
    seed,
    measured,
    modelInputs,
    model,
    ratio: ratioOf(model),
    hindcast,
    hindcastRatio: ratioOf(hindcast),
    target: PREDICTION_TARGET,
  };
  console.log(
    `  peak-local: last answer measured ${measured.lastAnswerSeconds} s, model ${model.lastAnswerSeconds} s ` +
      `(${result.ratio}×; with the slot's own call time ${hindcast.lastAnswerSeconds} s, ${result.hindcastRatio}×)`,
  );
  return result;
}

async function run(ctx: BenchContext): Promise<Results> {
  const seed = ctx.config.peakSeed;
  const sizes = groupSizes(seed, LOCAL_WORKLOAD);
  const bench = paymentCosts(readResults());
  const calls = bench.callsBefore + bench.callsAfter;
  console.log(
    `  peak-local: ${sizes.length} groups, ${PEAK_LOCAL.payments} payments in one slot; ` +
      `LOCAL_RESERVED_CONCURRENCY=${capSetting(PEAK_LOCAL.caps)}, SANDBOX_LATENCY_MS=${PEAK_LOCAL.latencyMs} ...`,
  );
  const measured = await measurePeakLocal(ctx, sizes, calls, serviceSettings());
  return { peakLocal: modelled(measured, seed, new Date().toISOString()) };
}

/** `--model-only`: the prediction again from the measurement saved in bench/results.json. */
async function remodel(): Promise<Results> {
  const saved = readResults().peakLocal as PeakLocalResult | undefined;
  if (!saved?.measured)
    throw new Error('bench/results.json has no peakLocal measurement: run peak-local first');
  return Promise.resolve({ peakLocal: modelled(saved.measured, saved.seed, saved.measuredAt) });
}

const sec = (n: number) => (Number.isNaN(n) || n === null ? 'never' : `${Math.round(n)} s`);
const pcts = (p: Percentiles) => `${sec(p.p50)} / ${sec(p.p99)} / ${sec(p.max)}`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function report(results: Results) {
  const r = results.peakLocal as PeakLocalResult | undefined;
  if (!r) return undefined;
  const m = r.measured;
  const off = Math.abs(r.ratio - 1);
  const verdict = Number.isFinite(r.ratio)
    ? off <= r.target
      ? `within ${Math.round(r.target * 100)}%: met`
      : `**not met** (${Math.round(off * 100)}% off)`
    : 'not comparable (a payment never answered)';
  const fn = (name: string) => m.functions[name] ?? { invocations: 0, throttles: 0, peakConcurrency: 0 };
  const modelFn = (v: ModelView, name: 'AuthorizeBatch' | 'BeginGroup' | 'FailBatch') =>
    `${v.peakConcurrency[name]} at most, ${int(v.lambdaThrottles[name])} throttles, ${int(v.lambdaInvocations[name])} invocations`;
  const localFn = (name: string) =>
    `${fn(name).peakConcurrency} at most, ${int(fn(name).throttles)} throttles, ${int(fn(name).invocations)} invocations`;
  const both = (f: (v: ModelView) => string): [string, string] => [f(r.model), f(r.hindcast)];
  const rows: [string, string, string, string][] = [
    [
      'time to the last answer',
      sec(m.lastAnswerSeconds),
      `${sec(r.model.lastAnswerSeconds)} (${r.ratio}×: ${verdict})`,
      `${sec(r.hindcast.lastAnswerSeconds)} (${r.hindcastRatio}×)`,
    ],
    ["a group's first answer p50 / p99 / max", pcts(m.firstAnswer), ...both((v) => pcts(v.firstAnswer))],
    ["a group's last answer p50 / p99 / max", pcts(m.lastAnswer), ...both((v) => pcts(v.lastAnswer))],
    [
      `AuthorizeBatch${m.caps.AuthorizeBatch === undefined ? '' : ` (cap ${m.caps.AuthorizeBatch})`}`,
      localFn('AuthorizeBatch'),
      ...both((v) => modelFn(v, 'AuthorizeBatch')),
    ],
    ['BeginGroup', localFn('BeginGroup'), ...both((v) => modelFn(v, 'BeginGroup'))],
    ['FailBatch (batches given up)', localFn('FailBatch'), ...both((v) => modelFn(v, 'FailBatch'))],
    [
      'payments answered; given up (Failed)',
      `${int(m.answered)}; ${int(m.failed)}`,
      ...both((v) => `${int(v.answered)}; ${int(v.givenUp)}`),
    ],
    [
      'groups with a payment given up; executions failed',
      `${m.groupsGivenUp}; ${m.executionsFailed}`,
      ...both((v) => `-; ${v.executionsFailed}`),
    ],
    ['payments charged twice', String(m.chargedTwice), '-', '-'],
    [
      `the API: GET a group, p50 / p99 / max (${int(m.apiGetMs.count)} GETs)`,
      `${int(m.apiGetMs.p50)} / ${int(m.apiGetMs.p99)} / ${int(m.apiGetMs.max)} ms, ${m.apiGetMs.errors} not answered 200`,
      '-',
      '-',
    ],
  ];
  const markdown = [
    `${m.workload.groups} groups of ${m.workload.sizes.min}-${m.workload.sizes.max} payments (median ${m.workload.sizes.p50}), ` +
      `${int(m.workload.payments)} in all, due in one slot and started by one hourly tick on a local runtime with ` +
      `\`LOCAL_RESERVED_CONCURRENCY=${capSetting(m.caps)}\` and \`SANDBOX_LATENCY_MS=${m.latencyMs}\`; times from the tick to ` +
      `each payment's \`authResponse.processedAt\`. Beside it the busiest slot's model on the same workload (seed ${r.seed}), ` +
      `cap and processor latency, with this machine's costs measured first on one group of ` +
      `${PEAK_LOCAL.calibrationPayments} payments alone under the cap: a DynamoDB Local call ` +
      `${round(m.costs.ddbCallSeconds * 1000, 2)} ms, a charge in a batch ${round(m.costs.chargeSeconds * 1000)} ms ` +
      `(so ${round(r.modelInputs.cpuSeconds * 1000, 1)} ms a charge beyond its calls and the processor), a Task's own ` +
      `overhead ${round(m.costs.taskOverheadSeconds * 1000, 1)} ms, a StartExecution ${round(m.costs.sfnCallSeconds * 1000, 1)} ms.`,
    '',
    `| scaled-down peak | measured (local runtime) | model: its prediction (a call ${round(m.costs.ddbCallSeconds * 1000)} ms) | model with the slot's own call (${round(m.slotDdbCallSeconds * 1000)} ms) |`,
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `While the slot ran: the runtime ${m.cores.runtime} cores, DynamoDB Local ${m.cores.dynamodb}, the machine ` +
      `${m.cores.machine} (others' work ${m.cores.foreign}); load average ${m.loadAverage.before} before, ` +
      `${m.loadAverage.after} after; a DynamoDB Local call ${round(m.slotDdbCallSeconds * 1000, 2)} ms on average ` +
      `(${round(m.costs.ddbCallSeconds * 1000, 2)} ms in the calibration). The groups were created in ${m.createSeconds} s, before the tick.`,
  ].join('\n');
  const text = [
    `peak-local: ${m.workload.groups} groups, ${m.workload.payments} payments, ${capSetting(m.caps)}: last answer ` +
      `${sec(m.lastAnswerSeconds)} measured, ${sec(r.model.lastAnswerSeconds)} modelled (${r.ratio}×, ${verdict.replace(/\*/g, '')})`,
    `  with the slot's own DynamoDB Local call time: ${sec(r.hindcast.lastAnswerSeconds)} (${r.hindcastRatio}×)`,
    ...rows.slice(1).map(([a, b, c, d]) => `  ${a}: ${b} | model ${c} | with the slot's call ${d}`),
  ].join('\n');
  return { console: text, markdown };
}

export const peakLocal: CustomSection = {
  kind: 'custom',
  name: 'peak-local',
  title: 'The busiest slot scaled down on the local runtime, against its model',
  run,
  remodel,
  report,
};
