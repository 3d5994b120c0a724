/**
 * Processing a 10,000-payment group (issue 4): payments per second through the local state
 * machine (statemachines/process-group.asl.json on aws-local-stepfunctions, in the runtime)
 * against the transactions core alone on the same DynamoDB Local, plus the Step Functions quotas
 * the run would use: history events per payment and the largest state payload.
 *
 * - State machine: one group of N payments created in one `POST .../groups`, then
 *   `POST .../groups/{id}/process-payments`; timed from the trigger to the group's status
 *   'processed' (polled every 200 ms), i.e. claim, StartExecution, BeginGroup, every
 *   AuthorizeBatch and CompleteGroup. The execution then waits for the settlement cut-off
 *   (SANDBOX_SETTLEMENT_SECONDS, short in the bench) and pages through the payments for receipts;
 *   its history events and largest payload are read once it has SUCCEEDED.
 * - Raw core: a second, separate group of N payments (other payors, so that the duplicate check
 *   sees nothing twice), claimed as a trigger claims it and run through the same handlers in the
 *   bench process (BeginGroup, AuthorizeBatch until the cursor is null, CompleteGroup: see
 *   support/core.ts), with the same batch size and concurrency, against the runtime's table.
 *
 * Order: an unmeasured warm-up on a small group per side (DynamoDB Local's JIT, both processes'
 * code paths; it also shows that the state machine loops over batches), then the raw group's
 * first half, the state machine's group, the raw group's second half (A B A), so that drift (the
 * JIT still compiling, the table growing by ~5 items per payment) falls on both sides alike.
 */
import { MID, type BenchContext } from '../support/context';
import { cpuSampler, type CpuUsage } from '../support/cpu';
import { round } from '../support/load';
import { localCore, type LocalCore } from '../support/core';
import { sumTotals, type BatchState, type ProcessingState } from '../../lambdas/domain/processing';
import type { CustomSection, Results } from './section';
import { PROCESSING_TARGETS, report, type ProcessingResult } from './processing-report';
import { createGroup, createPayors, delta, perPayment, stateMachineRun } from './processing-run';

const PAYORS = 25;
/** Unmeasured runs first, one per side; their amounts start at 500.00, clear of the measured ones. */
const WARM_UP = { raw: 1000, stateMachine: 500, amountBase: 500 };

const answered = (s: Pick<ProcessingState, 'totals'>) =>
  s.totals.approved + s.totals.declined + s.totals.failed + s.totals.skipped;

const addUsage = (into: CpuUsage, u: CpuUsage) => {
  for (const [k, ms] of Object.entries(u)) into[k] = (into[k] ?? 0) + ms;
};

const sum = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

function cpuOf(usage: CpuUsage, n: number, seconds: number) {
  const ours = ['bench', 'runtime', 'dynamodb', 'other'].reduce((s, k) => s + (usage[k] ?? 0), 0);
  const all: CpuUsage = { ...usage, ours };
  return {
    cpuMsPerPayment: Object.fromEntries(Object.entries(all).map(([k, ms]) => [k, round(ms / n, 3)])),
    cores: Object.fromEntries(Object.entries(all).map(([k, ms]) => [k, round(ms / 1000 / seconds, 2)])),
  };
}

/**
 * The raw core on one group, in steps, as the state machine runs it: BeginGroup's key ranges all
 * at once (as the Map runs them, up to its fan-out), each AuthorizeBatch after AuthorizeBatch
 * until it has answered about its share of `upTo` or its range is done; CompleteGroup at the end.
 */
function rawRunner(core: LocalCore, runtime: BenchContext['runtime'], groupId: string) {
  let begun: ProcessingState | undefined;
  let ranges: BatchState[] = [];
  let completed: ProcessingState | undefined;
  const usage: CpuUsage = {};
  let census: Record<string, number> = {};
  const calls: Record<string, number> = {};
  const steps: number[] = [];
  const rangeDone = (r: BatchState) => r.batches > 0 && r.cursor === null;
  const batches = () => ranges.reduce((n, r) => n + r.batches, 0);
  return {
    /** Claim + BeginGroup first; each range until its share of `upTo` is answered; CompleteGroup last. */
    async step(upTo: number) {
      if (completed) return void steps.push(0); // a small group, done in the first step
      const before = await runtime.census();
      const callsBefore = { ...core.calls };
      const cpu = cpuSampler([runtime.pid]);
      const started = performance.now();
      if (!begun) {
        const executionName = await core.claim(groupId);
        begun = await core.begin(
          { paymentGroupId: groupId, merchantId: MID, executionName },
          core.context('BeginGroup'),
        );
        if (!begun.claimed) throw new Error('raw core: BeginGroup did not see the claim');
        ranges = begun.ranges ?? [];
      }
      // Whole batches: a range stops at the batch that ends nearest its share of `upTo`.
      const share = upTo / ranges.length - core.batchSize / 2;
      ranges = await Promise.all(
        ranges.map(async (range) => {
          let r = range;
          while (!rangeDone(r) && answered(r) < share)
            r = await core.authorizeBatch(r, core.context('AuthorizeBatch'));
          return r;
        }),
      );
      if (ranges.every(rangeDone))
        completed = await core.complete({ ...begun, ranges }, core.context('CompleteGroup'));
      steps.push((performance.now() - started) / 1000);
      addUsage(usage, cpu.stop());
      census = sum(census, delta(await runtime.census(), before));
      Object.assign(calls, sum(calls, delta(core.calls, callsBefore)));
    },
    result: () => ({
      totals: completed?.totals ?? sumTotals(ranges.map((r) => r.totals)),
      batches: batches(),
      ranges: ranges.length,
      steps,
      usage,
      census,
      calls,
    }),
  };
}

async function run(ctx: BenchContext): Promise<Results> {
  const { runtime, config } = ctx;
  const n = config.processingPayments;
  const core = await localCore(runtime, config.settlementSeconds);

  console.log(
    `  processing: ${PAYORS * 2} payors; warm-up groups of ${WARM_UP.raw} (raw core) and ${WARM_UP.stateMachine} ` +
      `(state machine) payments; two groups of ${n} payments (one request each) ...`,
  );
  const smPayors = await createPayors(ctx, PAYORS);
  const rawPayors = await createPayors(ctx, PAYORS);
  const sm = await createGroup(ctx, smPayors, n, 1);
  const raw = await createGroup(ctx, rawPayors, n, 1);
  // Warm-up (DynamoDB Local's JIT, both processes' code paths), on other amounts than the measured
  // groups', so that the duplicate check never sees the same payor and amount twice.
  const warmRaw = await createGroup(ctx, rawPayors, WARM_UP.raw, WARM_UP.amountBase);
  const warmSm = await createGroup(ctx, smPayors, WARM_UP.stateMachine, WARM_UP.amountBase);
  const warmRawRun = rawRunner(core, runtime, warmRaw.groupId);
  await warmRawRun.step(Infinity);
  const warmSmRun = await stateMachineRun(ctx, warmSm.groupId);
  const warmOk =
    warmRawRun.result().totals.approved === WARM_UP.raw &&
    warmSmRun.summary?.approvedCount === WARM_UP.stateMachine;
  console.log(
    `  processing: groups of ${n} created in ${sm.seconds.toFixed(1)} s and ${raw.seconds.toFixed(1)} s; ` +
      `warm-up ${warmOk ? 'done' : `gave unexpected outcomes (raw ${warmRawRun.result().totals.approved}, state machine ${warmSmRun.summary?.approvedCount ?? 0} approved)`}; ` +
      `raw core first half, state machine, raw core second half ...`,
  );

  // A B A: the raw group's first half, the state machine's group, the raw group's second half.
  const rawRun = rawRunner(core, runtime, raw.groupId);
  await rawRun.step(n / 2);
  const smRun = await stateMachineRun(ctx, sm.groupId);
  console.log(
    `  processing: state machine processed ${n} payments in ${smRun.seconds.toFixed(1)} s ` +
      `(then ${smRun.afterProcessedSeconds.toFixed(1)} s to ${smRun.execution.status})`,
  );
  await rawRun.step(Infinity);
  const rawResult = rawRun.result();
  const rawSeconds = rawResult.steps.reduce((a, b) => a + b, 0);
  console.log(
    `  processing: raw core processed ${n} payments in ${rawSeconds.toFixed(1)} s ` +
      `(${rawResult.steps.map((h) => h.toFixed(1)).join(' + ')})`,
  );

  const smAnswered = smRun.answeredCount;
  const rawAnswered = answered(rawResult);
  for (const [side, count] of [
    ['state machine', smAnswered],
    ['raw core', rawAnswered],
  ] as const) {
    if (count !== n) console.log(`  processing: WARNING: the ${side} answered ${count} of ${n} payments`);
  }
  const sides = {
    stateMachine: {
      payments: n,
      answered: smAnswered,
      seconds: round(smRun.seconds),
      paymentsPerSecond: round(smAnswered / smRun.seconds, 1),
      batches: smRun.output.batches ?? 0,
      approved: smRun.summary?.approvedCount ?? 0,
      declined: smRun.summary?.declinedCount ?? 0,
      failed: smRun.summary?.failedCount ?? 0,
      ...cpuOf(smRun.usage, Math.max(smAnswered, 1), smRun.seconds),
      // The runtime's calls: the tasks', the trigger's, the polls' (GET group) and its stream reader's.
      ddbCallsPerPayment: perPayment(smRun.census, Math.max(smAnswered, 1)),
      writesPerPayment: perPayment(smRun.census, Math.max(smAnswered, 1), true),
    },
    raw: {
      payments: n,
      answered: rawAnswered,
      seconds: round(rawSeconds),
      paymentsPerSecond: round(rawAnswered / rawSeconds, 1),
      batches: rawResult.batches,
      approved: rawResult.totals.approved,
      declined: rawResult.totals.declined,
      failed: rawResult.totals.failed,
      ...cpuOf(rawResult.usage, Math.max(rawAnswered, 1), rawSeconds),
      // The handlers' calls in this process, plus the runtime's background calls meanwhile.
      ddbCallsPerPayment: perPayment(sum(rawResult.calls, rawResult.census), Math.max(rawAnswered, 1)),
    },
  };
  const stats = smRun.execution.stats;
  const result: ProcessingResult = {
    payments: n,
    batchSize: core.batchSize,
    concurrency: core.concurrency,
    fanOut: core.fanOut,
    ranges: rawResult.ranges,
    settlementSeconds: config.settlementSeconds,
    groupCreateSeconds: [round(sm.seconds), round(raw.seconds)],
    warmUp: { raw: WARM_UP.raw, stateMachine: WARM_UP.stateMachine, asExpected: warmOk },
    stateMachine: {
      ...sides.stateMachine,
      executionStatus: smRun.execution.status,
      triggerMs: round(smRun.triggerMs, 1),
      afterProcessedSeconds: round(smRun.afterProcessedSeconds),
      historyEvents: stats.historyEvents,
      historyEventsPerPayment: round(stats.historyEvents / n, 4),
      maxPayloadBytes: stats.maxPayloadBytes,
      retries: stats.retries,
    },
    raw: { ...sides.raw, halvesSeconds: rawResult.steps.map((h) => round(h)) },
    ratio: round(sides.stateMachine.paymentsPerSecond / sides.raw.paymentsPerSecond, 3),
    targets: PROCESSING_TARGETS,
  };
  return { processing: result };
}

export const processing: CustomSection = {
  kind: 'custom',
  name: 'processing',
  title: 'Processing a group: local state machine vs the transactions core',
  run,
  report,
};
