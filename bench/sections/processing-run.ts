/**
 * What both processing sections do through the API: payors, one group of `n` payments created in
 * one request, and a state machine run timed from the trigger to the group's status `processed`,
 * then followed to the execution's end for its history events and largest payload.
 */
import { mapLimit } from '../../lambdas/shared/concurrency';
import { sleep } from '../../lambdas/shared/clock';
import type { ProcessingState } from '../../lambdas/domain/processing';
import { createProfile, MID, scheduleDate, type BenchContext } from '../support/context';
import { cpuSampler } from '../support/cpu';
import { isPlacement } from '../support/count-call';
import { round } from '../support/load';
import { POLL_MS } from './processing-report';

/** Past this the section fails rather than hold the bench. */
const PROCESS_LIMIT_MS = 600_000;
const SUCCEED_LIMIT_MS = 120_000;

export function createPayors(ctx: BenchContext, count: number): Promise<string[]> {
  return mapLimit(Array.from({ length: count }), 8, (_x, i) => createProfile(ctx.api, `${i + 1} Bench Way`));
}

/** One pending group (a week ahead: the hourly tick leaves it alone) with `n` payments, one request. */
export async function createGroup(ctx: BenchContext, profiles: string[], n: number, amountBase: number) {
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

export interface GroupView {
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

/** Per payment: the calls (`placement` false) or where the writes landed (true: `write.*`, `index.*`). */
export function perPayment(
  counts: Record<string, number>,
  n: number,
  placement = false,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([k, c]) => c > 0 && isPlacement(k) === placement)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, c]) => [k, round(c / n, 3)]),
  );
}

export const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([k, n]) => [k, n - (before[k] ?? 0)]));

/** The state machine on one group: trigger → 'processed' (timed), then the execution to its end. */
export async function stateMachineRun(ctx: BenchContext, groupId: string) {
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
