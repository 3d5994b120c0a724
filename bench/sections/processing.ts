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
import { mapLimit, sleep } from '../../lambdas/shared/concurrency';
import { createProfile, MID, scheduleDate, type BenchContext } from '../support/context';
import { cpuSampler, type CpuUsage } from '../support/cpu';
import { round } from '../support/load';
import { localCore, type LocalCore } from '../support/core';
import type { ProcessingState } from '../../lambdas/domain/processing';
import type { CustomSection, Results } from './section';
import { POLL_MS, PROCESSING_TARGETS, report, type ProcessingResult } from './processing-report';

const PAYORS = 25;
/** Unmeasured runs first, one per side; their amounts start at 500.00, clear of the measured ones. */
const WARM_UP = { raw: 1000, stateMachine: 500, amountBase: 500 };
/** Past this the section fails rather than hold the bench. */
const PROCESS_LIMIT_MS = 300_000;
const SUCCEED_LIMIT_MS = 120_000;

const answered = (s: ProcessingState) =>
  s.totals.approved + s.totals.declined + s.totals.failed + s.totals.skipped;

function createPayors(ctx: BenchContext, count: number): Promise<string[]> {
  return mapLimit(Array.from({ length: count }), 8, (_x, i) => createProfile(ctx.api, `${i + 1} Bench Way`));
}

/** One pending group (a week ahead: the hourly tick leaves it alone) with `n` payments, one request. */
async function createGroup(ctx: BenchContext, profiles: string[], n: number, amountBase: number) {
  const payments = Array.from({ length: n }, (_x, i) => ({
    profileId: profiles[i % profiles.length]!,
    amount: round(amountBase + i / 100),
  }));
  const started = performance.now();
  const group = await ctx.api.json<{ paymentGroupId: string; paymentCount: number }>(
    'POST',
    `/rest/merchants/${MID}/groups`,
    { servicePayId: MID, scheduleDate: scheduleDate(), scheduleHour: 12, locationId: 42, payments },
    201,
  );
  if (group.paymentCount !== n) throw new Error(`group has ${group.paymentCount} payments, not ${n}`);
  return { groupId: group.paymentGroupId, seconds: (performance.now() - started) / 1000 };
}

interface GroupView {
  status: string;
  processingSummary?: {
    approvedCount: number;
    declinedCount: number;
    failedCount: number;
    skippedCount: number;
  };
}

interface ExecutionView {
  executionArn: string;
  status: string;
  output?: string;
  stats: { historyEvents: number; maxPayloadBytes: number; retries: number };
}

const addUsage = (into: CpuUsage, u: CpuUsage) => {
  for (const [k, ms] of Object.entries(u)) into[k] = (into[k] ?? 0) + ms;
};

const sum = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([k, n]) => [k, n - (before[k] ?? 0)]));

function perPayment(counts: Record<string, number>, n: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([, c]) => c > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, c]) => [k, round(c / n, 3)]),
  );
}

function cpuOf(usage: CpuUsage, n: number, seconds: number) {
  const ours = ['bench', 'runtime', 'dynamodb', 'other'].reduce((s, k) => s + (usage[k] ?? 0), 0);
  const all: CpuUsage = { ...usage, ours };
  return {
    cpuMsPerPayment: Object.fromEntries(Object.entries(all).map(([k, ms]) => [k, round(ms / n, 3)])),
    cores: Object.fromEntries(Object.entries(all).map(([k, ms]) => [k, round(ms / 1000 / seconds, 2)])),
  };
}

/** The raw core on one group, in steps: each runs batches until `upTo` payments are answered. */
function rawRunner(core: LocalCore, runtime: BenchContext['runtime'], groupId: string) {
  let state: ProcessingState | undefined;
  const usage: CpuUsage = {};
  let census: Record<string, number> = {};
  const calls: Record<string, number> = {};
  const steps: number[] = [];
  return {
    /** Claim + BeginGroup first; AuthorizeBatch until `upTo` are answered or none is left; CompleteGroup last. */
    async step(upTo: number) {
      // Done already (a small group, finished in the first step): cursor null after a batch.
      if (state && state.batches > 0 && state.cursor === null) return void steps.push(0);
      const before = await runtime.census();
      const callsBefore = { ...core.calls };
      const cpu = cpuSampler([runtime.pid]);
      const started = performance.now();
      if (!state) {
        const executionName = await core.claim(groupId);
        state = await core.begin(
          { paymentGroupId: groupId, merchantId: MID, executionName },
          core.context('BeginGroup'),
        );
        if (!state.claimed) throw new Error('raw core: BeginGroup did not see the claim');
      }
      do state = await core.authorizeBatch(state, core.context('AuthorizeBatch'));
      while (state.cursor !== null && answered(state) < upTo);
      if (state.cursor === null) state = await core.complete(state, core.context('CompleteGroup'));
      steps.push((performance.now() - started) / 1000);
      addUsage(usage, cpu.stop());
      census = sum(census, delta(await runtime.census(), before));
      Object.assign(calls, sum(calls, delta(core.calls, callsBefore)));
    },
    result: () => ({ state: state!, steps, usage, census, calls }),
  };
}

/** The state machine on one group: trigger → 'processed' (timed), then the execution to its end. */
async function stateMachineRun(ctx: BenchContext, groupId: string) {
  const { api, runtime } = ctx;
  const path = `/rest/merchants/${MID}/groups/${groupId}`;
  const before = await runtime.census();
  const cpu = cpuSampler([runtime.pid]);
  const started = performance.now();
  const trigger = await api.json<{ triggeredGroups: { executionArn?: string; error?: string }[] }>(
    'POST',
    `${path}/process-payments`,
    undefined,
    200,
  );
  const triggerMs = performance.now() - started;
  const executionArn = trigger.triggeredGroups[0]?.executionArn;
  if (!executionArn) throw new Error(`trigger started nothing: ${JSON.stringify(trigger)}`);
  let group: GroupView;
  for (;;) {
    group = await api.json<GroupView>('GET', path, undefined, 200);
    if (group.status === 'processed') break;
    if (performance.now() - started > PROCESS_LIMIT_MS)
      throw new Error(`state machine: group not processed after ${PROCESS_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
  const seconds = (performance.now() - started) / 1000;
  const usage = cpu.stop();
  const census = delta(await runtime.census(), before);

  // The execution goes on: the settlement Wait, then EmitReceipts; its stats are final at the end.
  let execution: ExecutionView | undefined;
  for (;;) {
    const reply = await api.send('GET', '/__local/executions');
    execution = (JSON.parse(reply.text) as ExecutionView[]).find((e) => e.executionArn === executionArn);
    if (execution && execution.status !== 'RUNNING') break;
    if (performance.now() - started > seconds * 1000 + SUCCEED_LIMIT_MS)
      throw new Error(`state machine: execution still ${execution?.status} long after processing`);
    await sleep(POLL_MS);
  }
  const afterProcessedSeconds = (performance.now() - started) / 1000 - seconds;
  const output = execution.output ? (JSON.parse(execution.output) as Partial<ProcessingState>) : {};
  const s = group.processingSummary;
  const answeredCount =
    (s?.approvedCount ?? 0) + (s?.declinedCount ?? 0) + (s?.failedCount ?? 0) + (s?.skippedCount ?? 0);
  return {
    seconds,
    triggerMs,
    usage,
    census,
    execution,
    output,
    summary: s,
    answeredCount,
    afterProcessedSeconds,
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
    warmRawRun.result().state.totals.approved === WARM_UP.raw &&
    warmSmRun.summary?.approvedCount === WARM_UP.stateMachine;
  console.log(
    `  processing: groups of ${n} created in ${sm.seconds.toFixed(1)} s and ${raw.seconds.toFixed(1)} s; ` +
      `warm-up ${warmOk ? 'done' : `gave unexpected outcomes (raw ${warmRawRun.result().state.totals.approved}, state machine ${warmSmRun.summary?.approvedCount ?? 0} approved)`}; ` +
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
  const rawAnswered = answered(rawResult.state);
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
    },
    raw: {
      payments: n,
      answered: rawAnswered,
      seconds: round(rawSeconds),
      paymentsPerSecond: round(rawAnswered / rawSeconds, 1),
      batches: rawResult.state.batches,
      approved: rawResult.state.totals.approved,
      declined: rawResult.state.totals.declined,
      failed: rawResult.state.totals.failed,
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
