/**
 * Webhook delivery of a large group (issue 18): events per second from a group's processing to a
 * healthy receiver on loopback, and the time from a payment's answer to its webhook.
 *
 * A receiver on 127.0.0.1 (an HTTP server in the bench process, answering 204 at once) verifies
 * every request with the `standardwebhooks` package, as an integrator's would, and notes when each
 * `webhook-id` first arrived. An endpoint subscribed to `group.*` and `payment.*` is created for
 * it, then one group of N payments (`--delivery-payments`, default 10,000) in one request, and the
 * group is processed by the local state machine. Every event of the processing (group.processing,
 * one payment.approved per payment, group.processed) goes the cloud's way: the table's stream, the
 * forwarder, the webhook queue, the delivery function (LOCAL_WEBHOOK_CONCURRENCY invocations of
 * 10 messages, 4 requests in flight per endpoint per invocation, an object's first event attempted by the
 * fan-out itself), the signed POST. The runtime's event pipeline counters (GET /__local/metrics
 * `pipeline`, lib/local/pipeline-metrics.ts) before and after say where the time went.
 *
 * Reported: events delivered per second, from the trigger to the last event's first 2xx (the
 * processing runs meanwhile and bounds it); how long delivery trails the processing (the last
 * arrival after group.processed was written); and per payment, the time from its answer (the
 * event's `createdAt`, written in the answer's own transaction) to its webhook's arrival: p50,
 * p99, max. The endpoint is deleted at the end (later sections' events go nowhere).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { sleep } from '../../lambdas/shared/clock';
import { dynamoDbLocalJvm } from '../../lib/local/dynamodb-local';
import { MID, scheduleDate, type BenchContext } from '../support/context';
import { round } from '../support/load';
import type { CustomSection, Results } from './section';

/**
 * The JVM a result's DynamoDB Local ran on, as the result recorded it (the bench's: the JVM's
 * defaults, as `npm start`); a result from before it was recorded ran on the first tier.
 */
const jvmWords = (jvm: DeliveryResult['jvm']): string =>
  (jvm ?? 'first-tier') === 'first-tier'
    ? "the JVM's first tier (DYNAMODB_LOCAL_JVM=first-tier)"
    : "the JVM's defaults";
import { createPayors, type GroupView } from './processing-run';
import { deliveryModelReport, modelDelivery, remodelDelivery } from './delivery-model';

const PAYORS = 25;
/** Past this the section fails rather than hold the bench. */
const RUN_LIMIT_MS = 18 * 60_000;
const POLL_MS = 500;
/** The slow endpoint's answer time (`delivery-slow`). */
const SLOW_ANSWER_MS = 2000;

interface DeliveryResult {
  payments: number;
  /** Events of the processing that reached the receiver with a 2xx (distinct webhook-ids). */
  events: number;
  /** Requests beyond the first of a webhook-id (at-least-once: 0 when nothing broke). */
  repeats: number;
  /** Requests whose signature did not verify (must be 0). */
  unverified: number;
  /** Trigger → the last event's first arrival. */
  seconds: number;
  eventsPerSecond: number;
  /** Trigger → group.processed written: the processing, which delivery runs beside. */
  processingSeconds: number;
  /** group.processed written → the last arrival: how far delivery trailed the processing. */
  trailingSeconds: number;
  /** A payment's answer (its event's createdAt) → its webhook's first arrival, ms. */
  answerToWebhookMs: { p50: number; p99: number; max: number };
  deliveryConcurrency: number;
  /** The runtime's event pipeline over the run (GET /__local/metrics `pipeline`, after less before). */
  pipeline?: PipelineDelta;
  /** `delivery-slow`: the slow endpoint beside it. */
  slowEndpoint?: SlowEndpointResult;
  /** `delivery-pair`: the other fast endpoint beside it (the control of `delivery-slow`). */
  fastEndpoint?: SlowEndpointResult;
  /** The machine's 1-minute load average at the trigger and at the end (others' work shows here). */
  loadAverage?: { start: number; end: number };
  /** The JVM DynamoDB Local ran on (absent in results from before 2026-12-02: the first tier). */
  jvm?: ReturnType<typeof dynamoDbLocalJvm>;
  /**
   * Payments answered in each second from the trigger (their events' `createdAt`), and a DynamoDB
   * Local call's mean time over the run, ms: the delivery model's inputs (delivery-model.ts).
   */
  answersPerSecond?: number[];
  ddbCallMs?: number;
  /**
   * The delivery function's pace through the run: for each interval of about a second between two
   * reads of the runtime's pipeline counters (seconds from the trigger), the handler time per
   * message of the invocations that ended in it (ms). The delivery model scales its invocations
   * by it (delivery-model.ts); absent before 2026-12-03 10:00 UTC.
   */
  invocationPace?: [from: number, to: number, msPerMessage: number][];
  /**
   * Likewise, how far behind the table the stream reader was (`pipeline` `stream.lagMs`: from a
   * batch's first new event's `createdAt` to the forwarder; its write's commit is in it), by
   * interval: the delivery model takes an event as readable that much after its answer.
   */
  streamLag?: [from: number, to: number, meanMs: number][];
  /**
   * Likewise, a DynamoDB Local call's mean time (every call of the runtime's, ms), by interval:
   * the delivery model's pace of an invocation where batches are not full (more invocations than
   * the queue keeps busy: its time per message then says more of its batch's size than of the
   * machine's pace). Absent before 2026-12-04 07:30 UTC.
   */
  callPace?: [from: number, to: number, meanCallMs: number][];
  /**
   * The runtime's AWS calls over the run by command (bench/support/ddb-census.ts, after less
   * before): the processing's and the deliveries' together (absent before 2026-12-02 16:30 UTC).
   */
  ddbCalls?: Record<string, number>;
  measuredAt: string;
  commit?: string;
}

/** The slow endpoint beside the measured one (`delivery-slow`), by the time the fast one had every event. */
interface SlowEndpointResult {
  /** Requests it was sent (2 s each, every tenth answered 500). */
  requests: number;
  /** Events of the run it had with a 2xx. */
  delivered: number;
  /** Messages the runtime put on the slow lane's queue over the run (the pipeline's, after less before). */
  slowLaneMessages: number;
}

interface TimingJson {
  count: number;
  totalMs: number;
  meanMs: number;
  maxMs: number;
}
interface QueueJson {
  sent: number;
  messages: number;
  waitMs: TimingJson;
  invocationMs: TimingJson;
}
interface PipelineJson {
  stream: {
    reads: number;
    records: number;
    readMs: TimingJson;
    forwardMs: TimingJson;
    lagMs: TimingJson;
    /** Absent before 2026-12-02. */
    shards?: number;
    passMs?: TimingJson;
  };
  queues: Record<string, QueueJson>;
}
/** A timing's count and mean over the run (the largest is the runtime's since it started). */
const timingDelta = (a: TimingJson | undefined, b: TimingJson) => {
  const count = b.count - (a?.count ?? 0);
  const ms = b.totalMs - (a?.totalMs ?? 0);
  return { count, meanMs: count === 0 ? 0 : round(ms / count, 1), maxMs: b.maxMs };
};
type PipelineDelta = ReturnType<typeof pipelineDelta>;
function pipelineDelta(a: PipelineJson, b: PipelineJson) {
  const qa = a.queues.webhooks;
  const qb = b.queues.webhooks ?? {
    sent: 0,
    messages: 0,
    waitMs: qa!.waitMs,
    invocationMs: qa!.invocationMs,
  };
  const invocations = timingDelta(qa?.invocationMs, qb.invocationMs);
  return {
    streamReads: b.stream.reads - a.stream.reads,
    streamRecords: b.stream.records - a.stream.records,
    streamReadMs: timingDelta(a.stream.readMs, b.stream.readMs),
    forwarderMs: timingDelta(a.stream.forwardMs, b.stream.forwardMs),
    streamLagMs: timingDelta(a.stream.lagMs, b.stream.lagMs),
    ...(b.stream.passMs && {
      streamShards: b.stream.shards ?? 0,
      streamPassMs: timingDelta(a.stream.passMs, b.stream.passMs),
    }),
    queueSent: qb.sent - (qa?.sent ?? 0),
    /** Messages of the run sent by the slow lane (its endpoint answered in over SLOW_ATTEMPT_MS). */
    slowLaneSent: (b.queues['webhooks-slow']?.sent ?? 0) - (a.queues['webhooks-slow']?.sent ?? 0),
    queueWaitMs: timingDelta(qa?.waitMs, qb.waitMs),
    invocationMs: invocations,
    messagesPerInvocation:
      invocations.count === 0 ? 0 : round((qb.messages - (qa?.messages ?? 0)) / invocations.count, 1),
  };
}
/** How often the run reads the pipeline counters for the delivery function's pace. */
const PACE_READ_MS = 1000;
/** The webhook queue's invocation counters at `at` seconds from the trigger. */
interface PaceRead {
  at: number;
  totalMs: number;
  messages: number;
  lagMs: number;
  lags: number;
  /** The runtime's DynamoDB calls so far and their total time (ms). */
  calls: number;
  callMs: number;
}
const paceRead = (
  p: PipelineJson,
  calls: { calls: number; ms: number } | undefined,
  at: number,
): PaceRead => ({
  at,
  totalMs: p.queues.webhooks?.invocationMs.totalMs ?? 0,
  messages: p.queues.webhooks?.messages ?? 0,
  lagMs: p.stream.lagMs.totalMs,
  lags: p.stream.lagMs.count,
  calls: calls?.calls ?? 0,
  callMs: calls?.ms ?? 0,
});
/** An interval (seconds from the trigger) and a mean over it. */
type Interval = [from: number, to: number, mean: number];
/**
 * Each interval between two reads in which `count` grew: the mean of `total` over what it counted
 * (an interval that counted nothing is left out).
 */
const perInterval = (
  reads: readonly PaceRead[],
  count: (r: PaceRead) => number,
  total: (r: PaceRead) => number,
): Interval[] =>
  reads.slice(1).flatMap((b, i) => {
    const a = reads[i]!;
    const n = count(b) - count(a);
    return n > 0 ? [[round(a.at, 2), round(b.at, 2), round((total(b) - total(a)) / n, 1)] as Interval] : [];
  });
/** Each interval in which the runtime made DynamoDB calls: their mean time. */
const callPace = (reads: readonly PaceRead[]) =>
  perInterval(
    reads,
    (r) => r.calls,
    (r) => r.callMs,
  );
/** Each interval in which the forwarder took batches: the stream's mean lag. */
const streamLag = (reads: readonly PaceRead[]) =>
  perInterval(
    reads,
    (r) => r.lags,
    (r) => r.lagMs,
  );
/** Each interval in which invocations ended: their handler time per message. */
const invocationPace = (reads: readonly PaceRead[]) =>
  perInterval(
    reads,
    (r) => r.messages,
    (r) => r.totalMs,
  );
const pipelineOf = async (ctx: BenchContext) =>
  (await ctx.api.json<{ pipeline: PipelineJson }>('GET', '/__local/metrics', undefined, 200)).pipeline;

interface Arrival {
  at: number;
  type: string;
  createdAt: string;
}

/**
 * The bench's receiver: verifies with `standardwebhooks`, answers 204, notes first arrivals. A slow
 * one (issue 36 item 2) answers every request 2 s late, and every tenth of them 500.
 */
async function startReceiver(slow = false) {
  const arrivals = new Map<string, Arrival>();
  const counts = { requests: 0, unverified: 0 };
  let webhook: Webhook | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      counts.requests++;
      const id = String(req.headers['webhook-id'] ?? '');
      try {
        webhook!.verify(body, {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        });
      } catch {
        counts.unverified++;
        res.writeHead(400).end();
        return;
      }
      const fail = slow && counts.requests % 10 === 0;
      if (!arrivals.has(id) && !fail) {
        const event = JSON.parse(body) as { type: string; createdAt: string };
        arrivals.set(id, { at, type: event.type, createdAt: event.createdAt });
      }
      if (!slow) return void res.writeHead(204).end();
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(fail ? 500 : 204).end();
      }, SLOW_ANSWER_MS);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-hooks`,
    arrivals,
    counts,
    useSecret(secret: string) {
      webhook = new Webhook(secret);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const headCommit = (): string | undefined => {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'lambdas', 'lib', 'statemachines'], {
    encoding: 'utf8',
  });
  return `${head.stdout.trim()}${dirty.stdout.trim() === '' ? '' : ' with uncommitted changes'}`;
};

/** The endpoint beside the measured one: none, a slow one (`delivery-slow`) or another fast one (`delivery-pair`). */
type Beside = 'none' | 'slow' | 'fast';

async function run(ctx: BenchContext, beside: Beside = 'none'): Promise<Results> {
  const { api } = ctx;
  const n = ctx.config.deliveryPayments;
  const commit = headCommit();
  const receiver = await startReceiver();
  const slowReceiver = beside === 'none' ? undefined : await startReceiver(beside === 'slow');
  let endpointId: string | undefined;
  let slowEndpointId: string | undefined;
  try {
    if (slowReceiver) {
      const slow = await api.json<{ webhookEndpointId: string; secret: string }>(
        'POST',
        `/v1/rest/merchants/${MID}/webhook-endpoints`,
        { url: slowReceiver.url, enabledEvents: ['group.*', 'payment.*'] },
        201,
      );
      slowEndpointId = slow.webhookEndpointId;
      slowReceiver.useSecret(slow.secret);
    }
    const endpoint = await api.json<{ webhookEndpointId: string; secret: string }>(
      'POST',
      `/v1/rest/merchants/${MID}/webhook-endpoints`,
      { url: receiver.url, enabledEvents: ['group.*', 'payment.*'] },
      201,
    );
    endpointId = endpoint.webhookEndpointId;
    receiver.useSecret(endpoint.secret);

    console.log(`  delivery: ${PAYORS} payors, a group of ${n} payments, an endpoint on loopback ...`);
    const profiles = await createPayors(ctx, PAYORS);
    const body = {
      servicePayId: MID,
      scheduleDate: scheduleDate(),
      scheduleHour: 11,
      locationId: 42,
      // A create that runs out of time on a loaded machine is resumed by a retry with its key.
      idempotencyKey: `bench-delivery-${Date.now()}`,
      // Amounts 900.00 and up: clear of the other sections' groups (the duplicate check).
      payments: Array.from({ length: n }, (_x, i) => ({
        profileId: profiles[i % PAYORS]!,
        amount: round(900 + i / 100),
      })),
    };
    let created = await api.send('POST', `/rest/merchants/${MID}/groups`, body);
    for (
      let waited = 0;
      (created.status >= 500 || created.status === 409) && waited < 90_000;
      waited += 5_000
    ) {
      console.log(`  delivery: group create answered ${created.status}; retrying with its key in 5 s`);
      await sleep(5_000);
      created = await api.send('POST', `/rest/merchants/${MID}/groups`, body);
    }
    if (created.status !== 201)
      throw new Error(`group create: ${created.status} ${created.text.slice(0, 300)}`);
    const group = JSON.parse(created.text) as { paymentGroupId: string; paymentCount: number };
    if (group.paymentCount !== n) throw new Error(`group has ${group.paymentCount} payments, not ${n}`);

    // group.created's delivery is not the processing's: wait for it, then start the clock.
    const createdSeen = Date.now();
    while (![...receiver.arrivals.values()].some((a) => a.type === 'group.created')) {
      if (Date.now() - createdSeen > 120_000) throw new Error('delivery: group.created never arrived');
      await sleep(100);
    }
    const before = new Set(receiver.arrivals.keys());

    const pipelineBefore = await pipelineOf(ctx);
    const censusBefore = await ctx.runtime.census();
    const callsBefore = (await ctx.runtime.callTiming())[''];
    const started = Date.now();
    const loadAtStart = loadavg()[0]!;
    const groupPath = `/rest/merchants/${MID}/groups/${group.paymentGroupId}`;
    await api.json('POST', `${groupPath}/process-payments`, undefined, 200);
    const expected = n + 2; // group.processing, a payment's answer each, group.processed
    const fresh = () => [...receiver.arrivals].filter(([id]) => !before.has(id)).map(([, a]) => a);
    let answeredChecked = false;
    const paceReads: PaceRead[] = [paceRead(pipelineBefore, callsBefore, 0)];
    for (let logged = started; ;) {
      const got = fresh().length;
      if (got >= expected) break;
      if (Date.now() - started - paceReads.at(-1)!.at * 1000 >= PACE_READ_MS)
        paceReads.push(
          paceRead(
            await pipelineOf(ctx),
            (await ctx.runtime.callTiming())[''],
            (Date.now() - started) / 1000,
          ),
        );
      if (!answeredChecked && fresh().some((a) => a.type === 'group.processed')) {
        // Every payment must have been answered (and so announced): a group short of payments
        // would leave this loop waiting for events that were never written.
        answeredChecked = true;
        const view = await api.json<GroupView>('GET', groupPath, undefined, 200);
        const s = view.processingSummary;
        const answered =
          (s?.approvedCount ?? 0) + (s?.declinedCount ?? 0) + (s?.failedCount ?? 0) + (s?.skippedCount ?? 0);
        if (answered !== n)
          throw new Error(`delivery: the group was processed with ${answered} payments answered, not ${n}`);
      }
      if (Date.now() - started > RUN_LIMIT_MS)
        throw new Error(`delivery: ${got} of ${expected} events after ${RUN_LIMIT_MS / 1000} s`);
      if (Date.now() - logged >= 15_000) {
        console.log(
          `  delivery: ${got} of ${expected} events after ${round((Date.now() - started) / 1000)} s ...`,
        );
        logged = Date.now();
      }
      await sleep(POLL_MS);
    }
    // Late repeats (none expected) would show in the counts: a moment for any still in flight.
    await sleep(1000);
    const pipeline = pipelineDelta(pipelineBefore, await pipelineOf(ctx));
    const censusAfter = await ctx.runtime.census();
    const callsAfter = (await ctx.runtime.callTiming())[''];
    const ddbCalls = Object.fromEntries(
      Object.entries(censusAfter)
        .map(([k, v]) => [k, v - (censusBefore[k] ?? 0)] as const)
        .filter(([, v]) => v > 0),
    );
    const calls = (callsAfter?.calls ?? 0) - (callsBefore?.calls ?? 0);

    const events = fresh();
    const lastAt = Math.max(...events.map((e) => e.at));
    const processed = events.find((e) => e.type === 'group.processed');
    if (!processed) throw new Error('delivery: group.processed never arrived');
    const processedAt = Date.parse(processed.createdAt);
    const latencies = events
      .filter((e) => e.type.startsWith('payment.'))
      .map((e) => e.at - Date.parse(e.createdAt))
      .sort((a, b) => a - b);
    const seconds = (lastAt - started) / 1000;
    const answersPerSecond: number[] = [];
    for (const e of events.filter((x) => x.type.startsWith('payment.'))) {
      const k = Math.max(0, Math.floor((Date.parse(e.createdAt) - started) / 1000));
      for (let i = answersPerSecond.length; i <= k; i++) answersPerSecond.push(0);
      answersPerSecond[k]!++;
    }
    const result: DeliveryResult = {
      payments: n,
      events: events.length,
      repeats: receiver.counts.requests - receiver.counts.unverified - receiver.arrivals.size,
      unverified: receiver.counts.unverified,
      seconds: round(seconds),
      eventsPerSecond: round(events.length / seconds, 1),
      processingSeconds: round((processedAt - started) / 1000),
      trailingSeconds: round((lastAt - processedAt) / 1000),
      answerToWebhookMs: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? 0,
      },
      deliveryConcurrency: ctx.config.webhookConcurrency,
      loadAverage: { start: round(loadAtStart, 1), end: round(loadavg()[0]!, 1) },
      jvm: dynamoDbLocalJvm(),
      pipeline,
      answersPerSecond,
      invocationPace: invocationPace(paceReads),
      streamLag: streamLag(paceReads),
      callPace: callPace(paceReads),
      ...(calls > 0 && {
        ddbCallMs: round(((callsAfter?.ms ?? 0) - (callsBefore?.ms ?? 0)) / calls, 2),
      }),
      ddbCalls,
      measuredAt: new Date().toISOString(),
      ...(commit !== undefined && { commit }),
    };
    console.log(
      `  delivery: ${result.events} events in ${result.seconds} s (${result.eventsPerSecond}/s); ` +
        `answer → webhook p50 ${result.answerToWebhookMs.p50} ms, p99 ${result.answerToWebhookMs.p99} ms`,
    );
    console.log(`  delivery: pipeline ${JSON.stringify(pipeline)}`);
    console.log(`  delivery: the runtime's calls over the run ${JSON.stringify(ddbCalls)}`);
    // The busiest slot's webhook model on this run's shape (delivery-model.ts).
    if (!slowReceiver) return { delivery: result, ...modelDelivery(result) };
    const other: SlowEndpointResult = {
      requests: slowReceiver.counts.requests,
      delivered: [...slowReceiver.arrivals.keys()].filter((id) => !before.has(id)).length,
      // Over this run: a section run after delivery-slow in one bench would count its messages too.
      slowLaneMessages: pipeline.slowLaneSent,
    };
    console.log(`  delivery: beside a ${beside} endpoint ${JSON.stringify(other)}`);
    return beside === 'slow'
      ? { deliveryBesideSlow: { ...result, slowEndpoint: other } }
      : { deliveryBesideFast: { ...result, fastEndpoint: other } };
  } finally {
    for (const id of [endpointId, slowEndpointId])
      if (id)
        await api.send('DELETE', `/v1/rest/merchants/${MID}/webhook-endpoints/${id}`).catch(() => undefined);
    await receiver.close();
    await slowReceiver?.close();
  }
}

function report(results: Results, key = 'delivery') {
  const r = results[key] as DeliveryResult | undefined;
  if (!r?.events) return undefined;
  const slow = r.slowEndpoint;
  const pair = r.fastEndpoint;
  const l = r.answerToWebhookMs;
  const text =
    `webhooks of a ${r.payments}-payment group's processing: ${r.events} events delivered in ${r.seconds} s = ` +
    `${r.eventsPerSecond} events/s (processing ${r.processingSeconds} s; the last arrival ${r.trailingSeconds} s after ` +
    `group.processed); a payment's answer → its webhook p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms; ` +
    `${r.repeats} repeats, ${r.unverified} unverified` +
    (r.loadAverage ? `; machine load average ${r.loadAverage.start} → ${r.loadAverage.end}` : '') +
    (slow
      ? `; beside a slow endpoint (2 s, every tenth 500): ${slow.requests} requests to it, ${slow.delivered} ` +
        `delivered, ${slow.slowLaneMessages} messages on the slow lane`
      : '') +
    (pair
      ? `; beside a second fast endpoint (the control): ${pair.requests} requests to it, ${pair.delivered} delivered, ` +
        `${pair.slowLaneMessages} messages on the slow lane`
      : '');
  const markdown = [
    `Measured on ${r.measuredAt.slice(0, 10)}${r.commit ? `, code ${r.commit}` : ''}. ` +
      `A receiver on loopback (in the bench process, answering 204 at once) verifies every request with the ` +
      `\`standardwebhooks\` package. An endpoint for it (\`group.*\`, \`payment.*\`), then one group of ` +
      `${r.payments.toLocaleString('en-US')} payments processed by the local state machine: its events go the cloud's ` +
      `way (table stream, forwarder, webhook queue, delivery function at ${r.deliveryConcurrency} invocations of 10 ` +
      `messages, the slow lane's 2 beside them, 4 requests in flight per endpoint in each, an object's first event ` +
      `attempted by the fan-out itself, signed POST) while the processing runs, DynamoDB Local on ` +
      `${jvmWords(r.jvm)} (lib/local/dynamodb-local.ts). Events/s: from ` +
      `\`POST .../process-payments\` to the last event's first 2xx. Answer → webhook: a payment's event's \`createdAt\` ` +
      `(written in the answer's own transaction) to its first arrival at the receiver.` +
      (r.loadAverage
        ? ` The machine's 1-minute load average was ${r.loadAverage.start} at the trigger and ${r.loadAverage.end} at ` +
          `the end (2 cores: above 2, other work shared them).`
        : '') +
      (r.pipeline
        ? ` Where the time went (the runtime's GET /__local/metrics \`pipeline\`): the stream ${r.pipeline.streamLagMs.meanMs} ms ` +
          `behind the table on average (${r.pipeline.streamLagMs.maxMs} ms at most) in ${r.pipeline.streamReads} reads of ` +
          `${r.pipeline.streamRecords} records (every write of the table, about ${r.pipeline.streamReadMs.meanMs} ms a read); ` +
          `the forwarder ${r.pipeline.forwarderMs.meanMs} ms a batch; a message waited ${r.pipeline.queueWaitMs.meanMs} ms ` +
          `on the webhook queue on average (${r.pipeline.queueWaitMs.maxMs} ms at most); an invocation of ` +
          `${r.pipeline.messagesPerInvocation} messages took ${r.pipeline.invocationMs.meanMs} ms.`
        : ''),
    '',
    ...(slow
      ? [
          `Beside it, on the same merchant and the same events, a slow endpoint (answering every request ` +
            `${SLOW_ANSWER_MS / 1000} s late, every tenth 500): by the time the measured endpoint had every event, ` +
            `it had been sent ${slow.requests} requests and had ${slow.delivered} events delivered; ` +
            `${slow.slowLaneMessages} messages went by the slow lane. The figures below are the measured (fast) endpoint's.`,
          '',
        ]
      : []),
    ...(pair
      ? [
          `Beside it, on the same merchant and the same events, a second endpoint answering at once (the control of ` +
            `\`delivery-slow\`: the same deliveries' work, none of the slowness): it had been sent ${pair.requests} requests ` +
            `and had ${pair.delivered} events delivered by the time the measured endpoint had every event; ` +
            `${pair.slowLaneMessages} messages went by the slow lane. The figures below are the measured endpoint's.`,
          '',
        ]
      : []),
    '| events delivered | seconds (trigger → last) | events/s | processing (trigger → group.processed) | last arrival after group.processed | answer → webhook p50 / p99 / max | repeats | unverified |',
    '|---|---|---|---|---|---|---|---|',
    `| ${r.events} | ${r.seconds} s | ${r.eventsPerSecond} | ${r.processingSeconds} s | ${r.trailingSeconds} s | ` +
      `${l.p50} / ${l.p99} / ${l.max} ms | ${r.repeats} | ${r.unverified} |`,
  ].join('\n');
  return { console: text, markdown };
}

export const delivery: CustomSection = {
  kind: 'custom',
  name: 'delivery',
  title: "Webhook delivery of a large group's events",
  run,
  remodel: remodelDelivery,
  report(results) {
    const own = report(results);
    const check = deliveryModelReport(results);
    if (!own || !check) return own;
    return {
      console: `${own.console}\n${check.console}`,
      markdown: `${own.markdown}\n\n**The busiest slot's webhook model against this run.** ${check.markdown}`,
    };
  },
};

/** Issue 36 item 2: the same run with a slow endpoint beside the measured one. */
export const deliveryBesideSlow: CustomSection = {
  kind: 'custom',
  name: 'delivery-slow',
  title: "Webhook delivery of a large group's events beside a slow endpoint",
  run: (ctx) => run(ctx, 'slow'),
  report: (results) => report(results, 'deliveryBesideSlow'),
};

/**
 * The control of `delivery-slow`: the same run beside a second endpoint that answers at once. A
 * second endpoint doubles the deliveries' work on the machine's two cores, whatever its speed; the
 * measured endpoint's figures here against `delivery-slow`'s say what the slowness itself costs it.
 */
export const deliveryBesideFast: CustomSection = {
  kind: 'custom',
  name: 'delivery-pair',
  title: "Webhook delivery of a large group's events beside a second fast endpoint",
  run: (ctx) => run(ctx, 'fast'),
  report: (results) => report(results, 'deliveryBesideFast'),
};
