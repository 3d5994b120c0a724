/**
 * The scaled-down busiest slot on the local runtime (issue 24, item 5), measured: a runtime of its
 * own with reserved concurrency (LOCAL_RESERVED_CONCURRENCY) and the sandbox answering after
 * `latencyMs`; first one group processed alone under the same cap, which measures this machine's
 * costs for the model (a DynamoDB Local call, a charge, a Task's own overhead); then `groups`
 * groups in one slot, started by one hourly tick, timed from the tick to each payment's answer
 * (its `authResponse.processedAt`).
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { loadavg } from 'node:os';
import { keys } from '../../lambdas/store/keys';
import { mapLimit } from '../../lambdas/shared/concurrency';
import { sleep } from '../../lambdas/shared/clock';
import { rangePlan } from '../../lambdas/domain/processing';
import type { ServiceSettings } from '../peak/inputs';
import { percentiles } from '../peak/stats';
import { createContext, MID, type BenchContext } from '../support/context';
import { cpuSampler } from '../support/cpu';
import { round } from '../support/load';
import { startBenchRuntime, type BenchRuntime } from '../support/runtime';
import {
  calibrationChargeSeconds,
  capSetting,
  PEAK_LOCAL,
  taskOverheadSeconds,
  type LocalCosts,
  type PeakLocalMeasurement,
} from './peak-local-inputs';
import { createGroup, createPayors, stateMachineRun } from './processing-run';

interface FunctionMetrics {
  cap?: number;
  invocations: number;
  throttles: number;
  peakConcurrency: number;
  busySeconds: number;
}
type Metrics = Record<string, FunctionMetrics>;

const metricsOf = async (ctx: BenchContext): Promise<Metrics> =>
  ((await ctx.api.json('GET', '/__local/metrics', undefined, 200)) as { functions: Metrics }).functions;

const minus = (a: Metrics, b: Metrics, fn: string, k: 'invocations' | 'throttles' | 'busySeconds') =>
  (a[fn]?.[k] ?? 0) - (b[fn]?.[k] ?? 0);

async function timingOf(runtime: BenchRuntime) {
  const t = await runtime.callTiming();
  return { ddb: t[''] ?? { calls: 0, ms: 0 }, sfn: t['SFN.'] ?? { calls: 0, ms: 0 } };
}
const perCall = (a: { calls: number; ms: number }, b: { calls: number; ms: number }) =>
  (a.ms - b.ms) / 1000 / Math.max(1, a.calls - b.calls);

/** One group alone under the cap: this machine's costs. */
async function calibrate(
  ctx: BenchContext,
  payors: string[],
  callsPerPayment: number,
  service: ServiceSettings,
): Promise<LocalCosts> {
  const n = PEAK_LOCAL.calibrationPayments;
  const group = await createGroup(ctx, payors, n, 900);
  const [m0, t0] = [await metricsOf(ctx), await timingOf(ctx.runtime)];
  const run = await stateMachineRun(ctx, group.groupId);
  const [m1, t1] = [await metricsOf(ctx), await timingOf(ctx.runtime)];
  const steps = await ctx.api.json<{ steps: { name: string; enteredAt: string; exitedAt?: string }[] }>(
    'GET',
    `/__local/executions/steps?executionArn=${encodeURIComponent(run.execution.executionArn)}`,
    undefined,
    200,
  );
  const at = (name: string, k: 'enteredAt' | 'exitedAt') =>
    Date.parse(steps.steps.find((s) => s.name === name)?.[k] ?? '');
  // The ranges run at once, each its batches one after another (the last of each finds nothing
  // more), so the path is BeginGroup, the first range's AuthorizeFirstBatch and batches, CompleteGroup.
  const { ranges } = rangePlan(n, service.batchSize, service.fanOut);
  const batchBusy = minus(m1, m0, 'AuthorizeBatch', 'busySeconds');
  const costs: LocalCosts = {
    ddbCallSeconds: round(perCall(t1.ddb, t0.ddb), 5),
    sfnCallSeconds: round(perCall(t1.sfn, t0.sfn), 5),
    chargeSeconds: round(calibrationChargeSeconds(batchBusy, service), 4),
    taskOverheadSeconds: round(
      taskOverheadSeconds({
        spanSeconds: (at('CompleteGroup', 'exitedAt') - at('BeginGroup', 'enteredAt')) / 1000,
        beginGroupSeconds: minus(m1, m0, 'BeginGroup', 'busySeconds'),
        firstBatchSeconds: minus(m1, m0, 'AuthorizeFirstBatch', 'busySeconds'),
        batchBusySeconds: batchBusy,
        completeGroupSeconds: minus(m1, m0, 'CompleteGroup', 'busySeconds'),
        batches: minus(m1, m0, 'AuthorizeBatch', 'invocations'),
        ranges,
      }),
      4,
    ),
    cpuMsPerPayment: {
      runtime: round((run.usage.runtime ?? 0) / n, 2),
      dynamodb: round((run.usage.dynamodb ?? 0) / n, 2),
    },
  };
  console.log(
    `  peak-local: calibration, ${n} payments alone: a DynamoDB Local call ${round(costs.ddbCallSeconds * 1000, 2)} ms ` +
      `(${callsPerPayment} a payment), a charge ${costs.chargeSeconds} s, a Task's overhead ` +
      `${round(costs.taskOverheadSeconds * 1000, 1)} ms`,
  );
  return costs;
}

/** The slot's groups' payments (their answers), read from the table. */
async function answersOf(ctx: BenchContext, groupIds: string[]) {
  return mapLimit(groupIds, 4, async (id) => {
    const out: { processedAt?: string; status?: string; paymentId: string }[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await ctx.db.send(
        new QueryCommand({
          TableName: ctx.runtime.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': keys.group(id).pk, ':p': keys.paymentPrefix },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const auth = item.authResponse as { processedAt?: string; status?: string } | null | undefined;
        out.push({ paymentId: String(item.paymentId), processedAt: auth?.processedAt, status: auth?.status });
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return out;
  });
}

/** Sales at the sandbox processor (its ledger), by payment. */
async function salesByPayment(ctx: BenchContext): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await ctx.db.send(
      new ScanCommand({
        TableName: ctx.runtime.tableName,
        FilterExpression: '#e = :e AND #k = :k',
        ExpressionAttributeNames: { '#e': 'entity', '#k': 'kind' },
        ExpressionAttributeValues: { ':e': 'sandbox-ledger', ':k': 'SALE' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const id = String(item.idempotencyKey).replace(/^payment:/, '');
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return counts;
}

export async function measurePeakLocal(
  base: BenchContext,
  sizes: readonly number[],
  callsPerPayment: number,
  service: ServiceSettings,
): Promise<PeakLocalMeasurement> {
  const runtime = await startBenchRuntime({
    env: {
      SANDBOX_SETTLEMENT_SECONDS: String(base.config.settlementSeconds),
      SANDBOX_LATENCY_MS: String(PEAK_LOCAL.latencyMs),
      LOCAL_RESERVED_CONCURRENCY: capSetting(PEAK_LOCAL.caps),
      // Only the tick starts the slot (no due sweep restarting anything meanwhile).
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  const kill = () => process.kill(runtime.pid, 'SIGKILL');
  process.once('exit', kill);
  try {
    const ctx = await createContext(base.config, runtime);
    const payors = await createPayors(ctx, PEAK_LOCAL.payors);
    const costs = await calibrate(ctx, payors, callsPerPayment, service);

    // The slot: a date no other group uses, 14:00 UTC.
    const date = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    const created = performance.now();
    const groupIds = await mapLimit([...sizes], 4, async (n, g) => {
      const payments = Array.from({ length: n }, (_x, i) => ({
        profileId: payors[(g + i) % payors.length]!,
        amount: round(1 + g + i / 100),
      }));
      const group = await ctx.api.json<{ paymentGroupId: string }>(
        'POST',
        `/rest/merchants/${MID}/groups`,
        { servicePayId: MID, scheduleDate: date, scheduleHour: 14, locationId: 42, payments },
        201,
      );
      return group.paymentGroupId;
    });
    const createSeconds = (performance.now() - created) / 1000;
    console.log(`  peak-local: ${sizes.length} groups created in ${round(createSeconds, 1)} s; the tick ...`);

    const [m0, t0] = [await metricsOf(ctx), await timingOf(runtime)];
    const load0 = loadavg()[0]!;
    const cpu = cpuSampler([runtime.pid]);
    const tick = Date.now();
    /** The API's GETs of the groups while the slot runs (8 at once): the integrators' view. */
    const getMs: number[] = [];
    let getErrors = 0;
    const unprocessed = new Set(groupIds);
    await ctx.api.json('POST', '/__local/events/hourly', { time: `${date}T14:00:00.000Z` }, 200);
    // Until every execution the tick started has left processing: ended, or in its settlement wait
    // (its group processed). Answer times come from the table afterwards, not from this poll.
    type Execution = { startDate: number; status: string; name: string };
    for (;;) {
      await sleep(2_000);
      const all = await ctx.api.json<Execution[]>('GET', '/__local/executions', undefined, 200);
      const slot = all.filter((e) => e.startDate * 1000 >= tick - 1_000);
      const running = slot.filter((e) => e.status === 'RUNNING');
      if (slot.length >= sizes.length && running.length === 0) break;
      if (running.length > 0) {
        // Running but processed (waiting for settlement) counts as done. Only the groups not yet
        // seen processed are asked again; an answer other than 200 (a handler out of time on a
        // starved machine) is counted, not fatal: it is what an integrator would have met.
        await mapLimit([...unprocessed], 8, async (id) => {
          const started = performance.now();
          const reply = await ctx.api.send('GET', `/rest/merchants/${MID}/groups/${id}`);
          getMs.push(performance.now() - started);
          if (reply.status !== 200) getErrors++;
          else if ((JSON.parse(reply.text) as { status: string }).status === 'processed')
            unprocessed.delete(id);
        });
        const failed = slot.filter((e) => e.status === 'FAILED').length;
        if (unprocessed.size <= failed) break;
      }
      if (Date.now() - tick > PEAK_LOCAL.limitMs)
        throw new Error(`peak-local: the slot is not done ${PEAK_LOCAL.limitMs / 1000} s after its tick`);
    }
    const usage = cpu.stop();
    const load1 = loadavg()[0]!;
    const [m1, t1] = [await metricsOf(ctx), await timingOf(runtime)];
    const executions = await ctx.api.json<Execution[]>('GET', '/__local/executions', undefined, 200);

    const answers = await answersOf(ctx, groupIds);
    const sales = await salesByPayment(ctx);
    const seconds = (iso: string | undefined) => (iso ? (Date.parse(iso) - tick) / 1000 : NaN);
    const perGroup = answers.map((ps) => {
      const times = ps.map((p) => seconds(p.processedAt)).filter((t) => !Number.isNaN(t));
      return {
        answered: times.length,
        size: ps.length,
        failed: ps.filter((p) => p.status === 'Failed').length,
        first: times.length > 0 ? Math.min(...times) : NaN,
        last: times.length > 0 ? Math.max(...times) : NaN,
      };
    });
    const all = answers.flat();
    const answered = all.filter((p) => p.processedAt).length;
    const elapsed = (Date.now() - tick) / 1000;
    const functions = Object.fromEntries(
      Object.entries(m1).map(([fn, m]) => [
        fn,
        {
          invocations: minus(m1, m0, fn, 'invocations'),
          throttles: minus(m1, m0, fn, 'throttles'),
          peakConcurrency: m.peakConcurrency,
          ...(m.cap !== undefined && { cap: m.cap }),
        },
      ]),
    );
    const core = (k: string) => round((usage[k] ?? 0) / 1000 / elapsed, 2);
    ctx.api.close();
    ctx.db.destroy();
    return {
      workload: {
        groups: sizes.length,
        payments: all.length,
        sizes: { ...percentiles(sizes), min: Math.min(...sizes) },
      },
      caps: PEAK_LOCAL.caps,
      latencyMs: PEAK_LOCAL.latencyMs,
      costs,
      createSeconds: round(createSeconds, 1),
      lastAnswerSeconds: answered === all.length ? round(Math.max(...perGroup.map((g) => g.last)), 1) : NaN,
      firstAnswer: percentiles(perGroup.map((g) => round(g.first, 1)).filter((t) => !Number.isNaN(t))),
      lastAnswer: percentiles(perGroup.filter((g) => g.answered === g.size).map((g) => round(g.last, 1))),
      answered,
      chargedTwice: all.filter((p) => (sales.get(p.paymentId) ?? 0) > 1).length,
      failed: all.filter((p) => p.status === 'Failed').length,
      groupsGivenUp: perGroup.filter((g) => g.failed > 0 || g.answered < g.size).length,
      executionsFailed: executions.filter((e) => e.startDate * 1000 >= tick - 1_000 && e.status === 'FAILED')
        .length,
      functions,
      apiGetMs: { ...percentiles(getMs.map((ms) => round(ms))), count: getMs.length, errors: getErrors },
      slotDdbCallSeconds: round(perCall(t1.ddb, t0.ddb), 5),
      cores: {
        runtime: core('runtime'),
        dynamodb: core('dynamodb'),
        machine: core('machine'),
        foreign: core('foreign'),
      },
      loadAverage: { before: round(load0, 1), after: round(load1, 1) },
    };
  } catch (error) {
    console.error(`  peak-local: the runtime's last output:\n${runtime.output().slice(-4000)}`);
    throw error;
  } finally {
    process.off('exit', kill);
    await runtime.stop();
  }
}
