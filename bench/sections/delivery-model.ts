/**
 * The busiest slot's webhook model checked against the local runtime (issue 36 item 3), as
 * `peak-local` checks its processing: the delivery bench's last run (`--only=delivery`, in
 * bench/results.json) modelled by bench/peak/delivery.ts with the local runtime's path instead of
 * the cloud's. The model's inputs are the run's shape (its payments' answers, second by second; one
 * endpoint; LOCAL_WEBHOOK_CONCURRENCY) and the times of the path's parts as the runtime measured
 * them (a DynamoDB Local call, a stream read, the forwarder, the records a read returns per event,
 * an invocation's time, of which a message's CPU is what the invocation's calls leave); what it
 * predicts is the rest: the stream's reads, the queue's waits, the batches and their concurrency,
 * and so each payment's answer-to-webhook time and the last webhook after the last answer.
 * Target: the p99 within 25% of the measured one. The delivery section runs it after its run
 * (`--only=delivery --model-only`: again from the run saved in bench/results.json, no runtime).
 */
import { WEBHOOK_DELIVERY } from '../../contract/webhooks';
import { PER_ENDPOINT_IN_FLIGHT } from '../../lambdas/core/webhook-batch';
import { WEBHOOK_DUE_SHARDS } from '../../lambdas/store/keys';
import { QUIET_STREAM_WAIT } from '../../lib/local/pipeline-metrics';
import { FUNCTION_CALLS, runDeliveries, type DeliveryPath, type SlotEvent } from '../peak/delivery';
import { round } from '../support/load';
import { readResults } from '../support/results';
import type { Results } from './section';

/** The target: the model's p99 within 25% of the measured one. */
const PREDICTION_TARGET = 0.25;

/** A mean of the runtime's pipeline timings (GET /__local/metrics `pipeline`). */
interface Mean {
  meanMs: number;
}

/** What the check reads of the delivery bench's result (delivery.ts). */
interface MeasuredDelivery {
  payments: number;
  events: number;
  processingSeconds: number;
  eventsPerSecond: number;
  deliveryConcurrency: number;
  answerToWebhookMs: { p50: number; p99: number; max: number };
  loadAverage?: { start: number; end: number };
  measuredAt: string;
  answersPerSecond?: number[];
  ddbCallMs?: number;
  invocationPace?: [from: number, to: number, msPerMessage: number][];
  callPace?: [from: number, to: number, meanCallMs: number][];
  streamLag?: [from: number, to: number, meanMs: number][];
  pipeline?: {
    streamRecords: number;
    streamShards?: number;
    streamReadMs: Mean;
    forwarderMs: Mean;
    invocationMs: Mean;
    messagesPerInvocation: number;
    slowLaneSent?: number;
    streamLagMs?: Mean;
  };
}

type Measured = Required<Pick<MeasuredDelivery, 'answersPerSecond' | 'ddbCallMs' | 'pipeline'>> &
  MeasuredDelivery;

/**
 * The runtime's delivery path with the run's own times, but for the request's: the time from a
 * POST to its answer (the receiver in the bench process, both ends on a loaded machine's event
 * loops) is what the model needs for its invocations to take as long on average as the run's did,
 * found by running the model (a bisection): an invocation's time is its calls and, 4 requests to the
 * endpoint at a time, its rounds of requests.
 */
export function localPath(m: Measured, events: readonly SlotEvent[]): DeliveryPath {
  const p = m.pipeline;
  const path = (answerSeconds: number): DeliveryPath => ({
    // The runtime's stream reader: one loop over DynamoDB Local's shards, each read in turn, 100
    // records a read (every write of the table: it filters nothing), 200 ms doubling to 1 s after a
    // pass that found none.
    shards: Math.max(1, p.streamShards ?? 1),
    oneReader: true,
    idleWaitSeconds: { first: QUIET_STREAM_WAIT.firstMs / 1000, max: QUIET_STREAM_WAIT.maxMs / 1000 },
    streamReadSeconds: p.streamReadMs.meanMs / 1000,
    readLimit: 100,
    recordsPerEvent: Math.max(1, p.streamRecords / Math.max(1, m.events)),
    forwardSeconds: p.forwarderMs.meanMs / 1000,
    // The in-process queue: a send wakes an idle poller at once, all of them from the start.
    sendSeconds: 0,
    receiveSeconds: 0,
    concurrency: m.deliveryConcurrency,
    batchSize: WEBHOOK_DELIVERY.batchSize,
    callSeconds: m.ddbCallMs / 1000,
    ...FUNCTION_CALLS,
    cpuSeconds: 0,
    perEndpoint: PER_ENDPOINT_IN_FLIGHT,
    answerSeconds,
    writes: { table: 0, endpointList: 0, dueShard: 0 },
    firstWrites: { table: 0, endpointList: 0, dueShard: 0 },
    dueShards: WEBHOOK_DUE_SHARDS,
  });
  const target = p.invocationMs.meanMs / 1000;
  const pace = paceOf(m);
  const mean = (answerSeconds: number) =>
    runDeliveries(events, { ...path(answerSeconds), pace }).meanInvocationSeconds;
  let [lo, hi] = [0, Math.max(target, 0.001)];
  for (let i = 0; i < FIT_STEPS && mean(hi) < target; i++) [lo, hi] = [hi, hi * 2];
  for (let i = 0; i < FIT_STEPS; i++) {
    const mid = (lo + hi) / 2;
    if (mean(mid) < target) lo = mid;
    else hi = mid;
  }
  return { ...path(round((lo + hi) / 2, 4)), pace };
}

/**
 * The run's pace: how much slower than its mean an invocation that begins at `t` ran.
 *
 * - From the run's DynamoDB Local calls (bench/sections/delivery.ts `callPace`) where it measured
 *   them: the mean call about half an invocation later, against the run's mean call. What slows an
 *   invocation on this machine is its calls' time, whatever its batch's size.
 * - Else (a run from before 2026-12-04) from `invocationPace`: the handler time per message of the
 *   invocations that ended about one invocation later, against the run's mean. That holds while
 *   batches are full; with more invocations than the queue keeps busy, a batch of one message
 *   takes its invocation's calls alone and reads as a pace many times the mean.
 * - Without either, none.
 */
export function paceOf(
  m: Pick<Measured, 'invocationPace' | 'callPace' | 'pipeline' | 'ddbCallMs'>,
): DeliveryPath['pace'] {
  const p = m.pipeline;
  // A series' interval `offset` seconds after `t`, against `mean` (1 outside every interval).
  const relative =
    (series: readonly [number, number, number][], offset: number, mean: number) => (t: number) => {
      const at = t + offset;
      const interval = series.find(([from, to]) => at >= from && at < to);
      return interval ? interval[2] / mean : 1;
    };
  if (m.callPace && m.callPace.length > 0 && m.ddbCallMs > 0)
    return relative(m.callPace, p.invocationMs.meanMs / 2000, m.ddbCallMs);
  const intervals = m.invocationPace;
  if (!intervals || intervals.length === 0 || p.messagesPerInvocation <= 0) return undefined;
  return relative(intervals, p.invocationMs.meanMs / 1000, p.invocationMs.meanMs / p.messagesPerInvocation);
}

/** Bisection steps of the fit (the request's time to about 1/2^14 of an invocation's). */
const FIT_STEPS = 14;

/**
 * The run's events: its payments' answers spread over each second, and the group's two; each
 * readable on the stream as far behind its answer as the run's stream was at that moment
 * (`streamLag`, where the run measured it: its commit on a busy DynamoDB Local is in it).
 */
export function measuredEvents(
  m: Pick<Measured, 'answersPerSecond' | 'processingSeconds' | 'streamLag'>,
): SlotEvent[] {
  const lag = (at: number) => (m.streamLag?.find(([from, to]) => at >= from && at < to)?.[2] ?? 0) / 1000;
  const event = (at: number, first: boolean): SlotEvent =>
    m.streamLag ? { at: at + lag(at), endpoint: 0, first, answeredAt: at } : { at, endpoint: 0, first };
  const events: SlotEvent[] = [event(0, false)];
  m.answersPerSecond.forEach((n, k) => {
    for (let j = 0; j < n; j++) events.push(event(k + (j + 0.5) / n, true));
  });
  events.push(event(m.processingSeconds, false));
  return events;
}

interface DeliveryModelResult {
  measuredAt: string;
  measured: {
    payments: number;
    answerToWebhookMs: { p50: number; p99: number; max: number };
    eventsPerSecond: number;
    loadAverage?: { start: number; end: number };
  };
  inputs: {
    ddbCallMs: number;
    streamReadMs: number;
    recordsPerEvent: number;
    invocationMs: number;
    messagesPerInvocation: number;
    /** The fitted time of a request to the receiver, and the model's mean invocation with it. */
    requestMs: number;
    modelInvocationMs: number;
    concurrency: number;
    /** Whether each invocation ran at the run's measured pace of its moment (paceOf), not at the mean. */
    paced?: boolean;
    /** The stream's mean lag over the run, where each event was taken as readable that late (measuredEvents). */
    streamLagMs?: number;
  };
  model: {
    answerToWebhookMs: { p50: number; p99: number; max: number };
    eventsPerSecond: number;
    messagesPerInvocation: number;
    peakInvocations: number;
  };
  p99Ratio: number;
  p50Ratio: number;
  target: number;
  /**
   * Messages the run sent by the slow lane (its loopback receiver answered in over a second on a
   * loaded machine), which the model does not take: the run is then not comparable.
   */
  slowLaneSent?: number;
}

/** The model beside the delivery bench's run `m` (the delivery section calls it after its run). */
export function modelDelivery(m: MeasuredDelivery | undefined): Results {
  if (!m?.answersPerSecond || m.ddbCallMs === undefined || !m.pipeline)
    throw new Error(
      'bench/results.json has no delivery run with answersPerSecond, ddbCallMs and pipeline: run `--only=delivery` first',
    );
  const measured = m as Measured;
  const events = measuredEvents(measured);
  const path = localPath(measured, events);
  const r = runDeliveries(events, path);
  const ms = (s: number) => Math.round(s * 1000);
  // The group's two events among them: 2 of the group's size + 2.
  const lag = { p50: ms(r.lag.p50), p99: ms(r.lag.p99), max: ms(r.lag.max) };
  const result: DeliveryModelResult = {
    measuredAt: m.measuredAt,
    measured: {
      payments: m.payments,
      answerToWebhookMs: m.answerToWebhookMs,
      eventsPerSecond: m.eventsPerSecond,
      ...(m.loadAverage && { loadAverage: m.loadAverage }),
    },
    inputs: {
      ddbCallMs: measured.ddbCallMs,
      streamReadMs: measured.pipeline.streamReadMs.meanMs,
      recordsPerEvent: round(path.recordsPerEvent, 1),
      invocationMs: measured.pipeline.invocationMs.meanMs,
      messagesPerInvocation: measured.pipeline.messagesPerInvocation,
      requestMs: round(path.answerSeconds * 1000, 1),
      modelInvocationMs: round(r.meanInvocationSeconds * 1000, 1),
      concurrency: path.concurrency,
      paced: path.pace !== undefined,
      ...(m.streamLag &&
        measured.pipeline.streamLagMs && { streamLagMs: measured.pipeline.streamLagMs.meanMs }),
    },
    model: {
      answerToWebhookMs: lag,
      eventsPerSecond: round(r.events / r.lastWebhookSeconds, 1),
      messagesPerInvocation: round(r.messagesPerInvocation, 1),
      peakInvocations: r.peakInvocations,
    },
    ...(m.pipeline.slowLaneSent !== undefined && { slowLaneSent: m.pipeline.slowLaneSent }),
    p99Ratio: round(lag.p99 / m.answerToWebhookMs.p99, 3),
    p50Ratio: round(lag.p50 / m.answerToWebhookMs.p50, 3),
    target: PREDICTION_TARGET,
  };
  console.log(
    `  delivery-model: answer → webhook p50 / p99 measured ${m.answerToWebhookMs.p50} / ${m.answerToWebhookMs.p99} ms, ` +
      `model ${lag.p50} / ${lag.p99} ms (${result.p50Ratio}×, ${result.p99Ratio}×)`,
  );
  return { deliveryModel: result };
}

/** `--only=delivery --model-only`: the check again from the run saved in bench/results.json. */
export const remodelDelivery = (): Promise<Results> =>
  Promise.resolve(modelDelivery(readResults().delivery as MeasuredDelivery | undefined));

/** The check's report (the delivery section's, after its own). */
export function deliveryModelReport(results: Results) {
  const r = results.deliveryModel as DeliveryModelResult | undefined;
  if (!r) return undefined;
  const off = Math.abs(r.p99Ratio - 1);
  const verdict =
    (r.slowLaneSent ?? 0) > 0
      ? `not comparable: ${r.slowLaneSent} messages of the run went by the slow lane, which the model does not take`
      : off <= r.target
        ? `within ${r.target * 100}%: met`
        : `**not met** (${Math.round(off * 100)}% off)`;
  const lags = (l: { p50: number; p99: number; max: number }) => `${l.p50} / ${l.p99} / ${l.max} ms`;
  const i = r.inputs;
  const rows: [string, string, string][] = [
    [
      'answer → webhook p50 / p99 / max',
      lags(r.measured.answerToWebhookMs),
      `${lags(r.model.answerToWebhookMs)} (p50 ${r.p50Ratio}×, p99 ${r.p99Ratio}×: ${verdict})`,
    ],
    [
      'events/s (trigger → the last webhook)',
      String(r.measured.eventsPerSecond),
      String(r.model.eventsPerSecond),
    ],
    [
      'messages per invocation; invocations at once at most',
      `${i.messagesPerInvocation}; -`,
      `${r.model.messagesPerInvocation}; ${r.model.peakInvocations} of ${i.concurrency}`,
    ],
  ];
  const markdown = [
    `The delivery bench's run of ${r.measuredAt.slice(0, 10)} (${r.measured.payments.toLocaleString('en-US')} payments, ` +
      `one endpoint, ${i.concurrency} invocations${r.measured.loadAverage ? `, load average ${r.measured.loadAverage.start} → ${r.measured.loadAverage.end}` : ''}) ` +
      `beside the busiest slot's webhook model (\`bench/peak/delivery.ts\`) on the same shape: its payments answered second ` +
      `by second as measured, the runtime's path (one stream reader, 100 records a read of every write, ${i.recordsPerEvent} ` +
      `a payment; the in-process queue) with the run's own times: a DynamoDB Local call ${i.ddbCallMs} ms, a stream read ` +
      `${i.streamReadMs} ms, an invocation ${i.invocationMs} ms for ${i.messagesPerInvocation} messages on average` +
      (i.paced
        ? ", each invocation of the model at the run's measured pace of its moment (its handler time per message, second by second, against the mean)"
        : '') +
      (i.streamLagMs !== undefined
        ? `, each event readable on the stream as far behind its answer as the run's stream was at that moment (${i.streamLagMs} ms on average: the write's commit on a busy DynamoDB Local and the reads)`
        : '') +
      `; the model's ` +
      `invocations take as long (${i.modelInvocationMs} ms) with a request to the receiver taking ${i.requestMs} ms (fitted: ` +
      `the runtime, the receiver and the processing share the machine's 2 cores).`,
    '',
    "| one group's webhooks | measured (local runtime) | model |",
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
  const text = [
    `delivery-model: answer → webhook measured ${lags(r.measured.answerToWebhookMs)}, model ${lags(r.model.answerToWebhookMs)} (p99 ${r.p99Ratio}×, ${verdict.replace(/\*/g, '')})`,
    ...rows.slice(1).map(([a, b, c]) => `  ${a}: ${b} | model ${c}`),
  ].join('\n');
  return { console: text, markdown };
}
