/**
 * The busiest slot (issue 24): a discrete-event model of one slot of 1,000,000 payments in 3,000
 * groups (bench/peak/), run at two processor latencies against AWS's default quotas, with the
 * deployed configuration and the per-payment costs of the bench's last results, and the slot's
 * webhooks (bench/peak/slot-deliveries.ts: at prod's delivery concurrency, at dev's, and the least
 * that meet their targets). It needs no local runtime and takes one to three minutes. `--seed` draws another workload; `--processor-rate` changes the
 * processor's limit (charges per second across all groups).
 */
import { spawnSync } from 'node:child_process';
import type { BenchConfig } from '../support/context';
import { readResults } from '../support/results';
import { bounds, tightest, TARGETS } from '../peak/bounds';
import { groupSizes, ITEMS, paymentCosts, REGION, serviceSettings, WORKLOAD } from '../peak/inputs';
import { runModel } from '../peak/model';
import { eventRecorder, slotDeliveries } from '../peak/slot-deliveries';
import { report, type PeakRun, type PeakSlotResult } from '../peak/report';
import { percentiles } from '../peak/stats';
import type { ModelSection, Results } from './section';

/** The processor latencies of the issue's report. */
const LATENCIES = [0.5, 1.5] as const;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function run(config: BenchConfig): Promise<Results> {
  const seed = config.peakSeed;
  const processorRate = config.processorRate;
  const costs = paymentCosts(readResults());
  const service = serviceSettings();
  const sizes = groupSizes(seed);
  const scenarios: { name: string; latencySeconds: number; processorRate: number }[] = [
    ...LATENCIES.map((latencySeconds) => ({ name: `${latencySeconds} s`, latencySeconds, processorRate })),
    // What today's service does when the processor is not the limit: what else binds.
    { name: `${LATENCIES[0]} s, processor unlimited`, latencySeconds: LATENCIES[0], processorRate: 1e12 },
  ];
  const runs: PeakRun[] = scenarios.map((sc) => {
    const started = performance.now();
    const unlimited = sc.processorRate >= 1e12;
    const input = { sizes, seed, costs, service, ...sc };
    // The slot's events, for its webhooks (not of the what-if without a processor's rate).
    const recorder = unlimited ? undefined : eventRecorder();
    const result = runModel({ ...input, onEvent: recorder?.onEvent });
    const all = bounds({ sizes, costs, service, ...sc });
    console.log(
      `  peak-slot ${sc.name}: last answer ${Number.isNaN(result.lastAnswerSeconds) ? 'never' : `${round(result.lastAnswerSeconds)} s`}, ${result.events.toLocaleString('en-US')} events ` +
        `in ${round((performance.now() - started) / 1000)} s`,
    );
    const deliveries = recorder && slotDeliveries(input, result, recorder.events);
    if (deliveries)
      console.log(
        `  peak-slot ${sc.name}: webhooks at webhookConcurrency ${deliveries.deployed.concurrency}: the last ` +
          `${round(deliveries.deployed.result.afterLastSeconds)} s after the last answer; ${deliveries.least?.concurrency ?? 'none'} ` +
          `meets ${deliveries.target} s, ${deliveries.pace?.concurrency ?? 'none'} keeps pace (in ${round((performance.now() - started) / 1000)} s)`,
      );
    return {
      ...sc,
      unlimited,
      result,
      bounds: all,
      tightest: tightest(all),
      ...(deliveries && { deliveries }),
    };
  });
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout?.trim();
  const result: PeakSlotResult = {
    measuredAt: new Date().toISOString(),
    commit,
    seed,
    processorRate,
    workload: {
      ...WORKLOAD,
      sizes: { ...percentiles(sizes), min: Math.min(...sizes) },
    },
    settings: {
      batchSize: service.batchSize,
      concurrency: service.concurrency,
      fanOut: service.fanOut,
      startConcurrency: service.startConcurrency,
      emailSendRate: service.emailSendRate,
      authorizeBatchTimeoutSeconds: service.authorizeBatchTimeoutSeconds,
    },
    costs,
    assumptions: { ...REGION, ...ITEMS },
    targets: TARGETS,
    runs,
  };
  return Promise.resolve({ peakSlot: result });
}

export const peakSlot: ModelSection = {
  kind: 'model',
  name: 'peak-slot',
  title: 'The busiest slot: a model of 1,000,000 payments in 3,000 groups',
  run,
  report,
};
