/**
 * Queuing a large group's receipts (issue 25, defect 8): receipts queued per second by the local
 * state machine once the group's settlement cut-off has passed.
 *
 * One group of N payments (`--receipts-payments`, default 10,000), every one asking for a receipt,
 * charged to payors with an e-mail address (so every approved payment's receipt is due), created
 * in one request and triggered; the execution processes it, waits for the settlement cut-off
 * (SANDBOX_SETTLEMENT_SECONDS, short in the bench) and queues the receipts (one outbox item each).
 * The receipts phase is timed from the execution's history: from entering the first receipts state
 * (EmitReceipts, or QueueReceipts, the Map over the group's key ranges) to leaving the last one
 * (ReceiptsQueued once receipts fan out), so the processing and the settlement wait are left out.
 *
 * Twice: in the bench's runtime, where DynamoDB Local answers in about a millisecond and the
 * machine's CPU bounds the rate; then in a runtime of its own whose every DynamoDB call first
 * waits DDB_LATENCY_MS (bench/support/ddb-census.ts), the round trip of DynamoDB in the Region,
 * which bounds work done one call after another (the issue's "about 50 a second").
 * The local notifier meanwhile sends the receipts at EMAIL_SEND_RATE (14/s): SES pacing, which is
 * not what is measured here.
 */
import { spawnSync } from 'node:child_process';
import { mapLimit } from '../../lambdas/shared/concurrency';
import { sleep } from '../../lambdas/shared/clock';
import { createContext, MID, scheduleDate, type BenchContext } from '../support/context';
import { round } from '../support/load';
import { startBenchRuntime } from '../support/runtime';
import type { CustomSection, Results } from './section';

const PAYORS = 25;
/** Past this the section fails rather than hold the bench (queuing one at a time took minutes). */
const RUN_LIMIT_MS = 15 * 60_000;
const POLL_MS = 500;
/** The receipts states of the execution (the single loop before issue 25; the fan-out after). */
const RECEIPT_STATES = new Set(['EmitReceipts', 'QueueReceipts', 'ReceiptsQueued']);
/** DynamoDB's round trip in the Region (5-10 ms), added to every call of the second run. */
const DDB_LATENCY_MS = 10;

interface ReceiptsRun {
  /** Added to every DynamoDB call of the run (0: DynamoDB Local as it is). */
  ddbLatencyMs: number;
  payments: number;
  receipts: number;
  seconds: number;
  receiptsPerSecond: number;
  /** Top-level receipts states the execution went through (one per page before the fan-out). */
  receiptSteps: number;
  historyEvents: number;
  maxPayloadBytes: number;
  executionStatus: string;
  /** 100,000 receipts at this rate, seconds. */
  secondsFor100k: number;
}

interface ReceiptsResult {
  runs: ReceiptsRun[];
  /** When, and on which code, this section ran (`--only=receipts` leaves the others' results). */
  measuredAt: string;
  commit?: string;
}

const headCommit = (): string | undefined => {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'lambdas', 'lib', 'statemachines'], {
    encoding: 'utf8',
  });
  return `${head.stdout.trim()}${dirty.stdout.trim() === '' ? '' : ' with uncommitted changes'}`;
};

interface Step {
  name: string;
  enteredAt: string;
  exitedAt?: string;
}

/** A payor with an e-mail address and one VISA card; its profile id. */
async function payorWithEmail(ctx: BenchContext, i: number): Promise<string> {
  const payor = await ctx.api.json<{ payorId: string; defaultPaymentMethodId: string }>(
    'POST',
    `/v1/rest/merchants/${MID}/payors`,
    {
      email: `bench-receipts-${i}@example.com`,
      paymentMethod: {
        accountType: 'VISA',
        cardNumber: '4111111111111111',
        expiryMonth: 12,
        expiryYear: new Date().getUTCFullYear() + 1,
        billingAddress: {
          line1: `${i} Receipt Road`,
          city: 'Springfield',
          state: 'OR',
          postalCode: '97475',
          country: 'US',
        },
      },
    },
    201,
  );
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

/** One group's receipts on `ctx`'s runtime. */
async function measure(ctx: BenchContext, ddbLatencyMs: number): Promise<ReceiptsRun> {
  const { api } = ctx;
  const n = ctx.config.receiptsPayments;
  console.log(
    `  receipts (DynamoDB +${ddbLatencyMs} ms): ${PAYORS} payors with e-mail, a group of ${n} payments asking for receipts ...`,
  );
  const profiles = await mapLimit(Array.from({ length: PAYORS }), 8, (_x, i) => payorWithEmail(ctx, i + 1));
  const body = {
    servicePayId: MID,
    scheduleDate: scheduleDate(),
    scheduleHour: 13,
    locationId: 42,
    // A create that runs out of time locally (the runtime gives every API function 10 s; a loaded
    // 2-core machine writes 10,000 payments in about 8) is resumed by a retry with its key.
    idempotencyKey: `bench-receipts-${Date.now()}`,
    // Amounts 700.00 and up: clear of the other sections' groups (the duplicate check).
    payments: Array.from({ length: n }, (_x, i) => ({
      profileId: profiles[i % PAYORS]!,
      amount: round(700 + i / 100),
      sendEmailReceipt: true,
    })),
  };
  // The first attempt's idempotency lease (30 s) must run out before a retry resumes it (409 till then).
  let created = await api.send('POST', `/rest/merchants/${MID}/groups`, body);
  for (
    let waited = 0;
    (created.status >= 500 || created.status === 409) && waited < 90_000;
    waited += 5_000
  ) {
    console.log(`  receipts: group create answered ${created.status}; retrying with its key in 5 s`);
    await sleep(5_000);
    created = await api.send('POST', `/rest/merchants/${MID}/groups`, body);
  }
  if (created.status !== 201)
    throw new Error(`group create: ${created.status} ${created.text.slice(0, 300)}`);
  const group = JSON.parse(created.text) as { paymentGroupId: string; paymentCount: number };
  if (group.paymentCount !== n) throw new Error(`group has ${group.paymentCount} payments, not ${n}`);
  const path = `/rest/merchants/${MID}/groups/${group.paymentGroupId}`;
  const trigger = await api.json<{ triggeredGroups: { executionArn?: string }[] }>(
    'POST',
    `${path}/process-payments`,
    undefined,
    200,
  );
  const executionArn = trigger.triggeredGroups[0]?.executionArn;
  if (!executionArn) throw new Error(`trigger started nothing: ${JSON.stringify(trigger)}`);

  const started = Date.now();
  type Execution = {
    executionArn: string;
    status: string;
    output?: string;
    stats: { historyEvents: number; maxPayloadBytes: number };
  };
  let execution: Execution | undefined;
  for (;;) {
    const listed = JSON.parse((await api.send('GET', '/__local/executions')).text) as Execution[];
    execution = listed.find((e) => e.executionArn === executionArn);
    if (execution && execution.status !== 'RUNNING') break;
    if (Date.now() - started > RUN_LIMIT_MS)
      throw new Error(`receipts: execution still ${execution?.status} after ${RUN_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
  const steps = (
    JSON.parse(
      (await api.send('GET', `/__local/executions/steps?executionArn=${encodeURIComponent(executionArn)}`))
        .text,
    ) as { steps: Step[] }
  ).steps.filter((s) => RECEIPT_STATES.has(s.name));
  if (steps.length === 0) throw new Error('receipts: the execution went through no receipts state');
  const from = Math.min(...steps.map((s) => Date.parse(s.enteredAt)));
  const to = Math.max(...steps.map((s) => Date.parse(s.exitedAt ?? s.enteredAt)));
  const output = execution.output ? (JSON.parse(execution.output) as { receiptsQueued?: number }) : {};
  const receipts = output.receiptsQueued ?? n;
  const seconds = Math.max((to - from) / 1000, 0.001);
  const result: ReceiptsRun = {
    ddbLatencyMs,
    payments: n,
    receipts,
    seconds: round(seconds),
    receiptsPerSecond: round(receipts / seconds, 1),
    receiptSteps: steps.length,
    historyEvents: execution.stats.historyEvents,
    maxPayloadBytes: execution.stats.maxPayloadBytes,
    executionStatus: execution.status,
    secondsFor100k: round((100_000 * seconds) / Math.max(receipts, 1)),
  };
  console.log(
    `  receipts (DynamoDB +${ddbLatencyMs} ms): ${receipts} queued in ${result.seconds} s (${result.receiptsPerSecond}/s), ${steps.length} receipts steps`,
  );
  return result;
}

/** The same in a runtime of its own whose DynamoDB calls each take DDB_LATENCY_MS more. */
async function measureWithLatency(base: BenchContext): Promise<ReceiptsRun> {
  const runtime = await startBenchRuntime({
    env: {
      SANDBOX_SETTLEMENT_SECONDS: String(base.config.settlementSeconds),
      BENCH_DDB_LATENCY_MS: String(DDB_LATENCY_MS),
    },
  });
  // If the bench is stopped meanwhile, this runtime goes with it (its DynamoDB Local's watchdog too).
  const kill = () => process.kill(runtime.pid, 'SIGKILL');
  process.once('exit', kill);
  try {
    const ctx = await createContext(base.config, runtime);
    const result = await measure(ctx, DDB_LATENCY_MS);
    ctx.api.close();
    ctx.db.destroy();
    return result;
  } catch (error) {
    console.error(
      `  receipts: the +${DDB_LATENCY_MS} ms runtime's last output:\n${runtime.output().slice(-4000)}`,
    );
    throw error;
  } finally {
    process.off('exit', kill);
    await runtime.stop();
  }
}

async function run(ctx: BenchContext): Promise<Results> {
  const commit = headCommit();
  const runs = [await measure(ctx, 0), await measureWithLatency(ctx)];
  const result: ReceiptsResult = {
    runs,
    measuredAt: new Date().toISOString(),
    ...(commit !== undefined && { commit }),
  };
  return { receipts: result };
}

function report(results: Results) {
  const r = results.receipts as ReceiptsResult | undefined;
  if (!r?.runs) return undefined;
  const minutes = (s: number) => (s >= 120 ? `${round(s / 60, 1)} minutes` : `${round(s, 1)} s`);
  const text = r.runs
    .map(
      (x) =>
        `receipts of a ${x.payments}-payment group, DynamoDB +${x.ddbLatencyMs} ms: ${x.receipts} queued in ${x.seconds} s = ` +
        `${x.receiptsPerSecond} receipts/s (100,000 at this rate: ${minutes(x.secondsFor100k)}); ${x.receiptSteps} receipts steps, ` +
        `execution ${x.executionStatus}, ${x.historyEvents} history events, largest payload ${x.maxPayloadBytes} bytes`,
    )
    .join('\n');
  const markdown = [
    `Measured on ${r.measuredAt.slice(0, 10)}${r.commit ? `, code ${r.commit}` : ''}. ` +
      `One group of ${(r.runs[0]?.payments ?? 0).toLocaleString('en-US')} payments, each asking for a receipt and charged ` +
      `to a payor with an e-mail address, processed by the local state machine; once its settlement cut-off passed the ` +
      `execution queued one receipt (outbox item) per approved payment. Timed from the execution's history: from entering ` +
      `its first receipts state to leaving its last (processing and the settlement wait left out). Twice: in the bench's ` +
      `runtime (DynamoDB Local answers in about a millisecond: the 2-core machine's CPU bounds the rate), and in a runtime ` +
      `of its own whose every DynamoDB call first waits ${DDB_LATENCY_MS} ms, DynamoDB's round trip in the Region, which ` +
      `bounds work done one call after another. The local notifier sends the receipts meanwhile at EMAIL_SEND_RATE: ` +
      `SES's pace, not measured here.`,
    '',
    '| DynamoDB call latency added | receipts queued | receipts/s | 100,000 at this rate | top-level receipts steps | history events (processing included) | largest state payload |',
    '|---|---|---|---|---|---|---|',
    ...r.runs.map(
      (x) =>
        `| ${x.ddbLatencyMs} ms | ${x.receipts} in ${x.seconds} s | ${x.receiptsPerSecond} | ${minutes(x.secondsFor100k)} | ` +
        `${x.receiptSteps} | ${x.historyEvents} | ${x.maxPayloadBytes} bytes |`,
    ),
  ].join('\n');
  return { console: text, markdown };
}

export const receipts: CustomSection = {
  kind: 'custom',
  name: 'receipts',
  title: "Queuing a large group's receipts",
  run,
  report,
};
