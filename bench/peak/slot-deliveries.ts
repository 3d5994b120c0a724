/**
 * The busiest slot's webhooks in the cloud (issue 36 item 3): the slot's events, as the processing
 * model wrote them, delivered along the path as lib/cdk deploys it (delivery.ts), to one endpoint per
 * merchant answering in 200 ms; the last webhook's time after the last answer against the issue's
 * 5 minutes, at the deployed `webhookConcurrency` and at the least that meets it; and the check that
 * deliveries leave processing's time as it was. They share two things with processing: the
 * account's Lambda concurrency, where both hold reservations (processing's PROCESSING_CONCURRENCY,
 * the delivery function's `webhookConcurrency` + the slow lane's + headroom), so neither takes the
 * other's, and the table's write capacity, which the processing model is run again with less of,
 * by the deliveries' own peak.
 */
import { PROCESSING_CONCURRENCY } from '../../contract/processing';
import { WEBHOOK_DELIVERY } from '../../contract/webhooks';
import { PER_ENDPOINT_IN_FLIGHT } from '../../lambdas/core/webhook-batch';
import { WEBHOOK_DUE_SHARDS } from '../../lambdas/store/keys';
import {
  FUNCTION_CALLS,
  runDeliveries,
  type DeliveryPath,
  type DeliveryResult,
  type SlotEvent,
  type TableWrites,
} from './delivery';
import { REGION, type ModelInput } from './inputs';
import { runModel } from './model';
import {
  DDB_PARTITION_WCU,
  DDB_TABLE_MAX_WCU,
  LAMBDA_ACCOUNT_CONCURRENCY,
  LAMBDA_MIN_UNRESERVED,
  SQS_SOURCE_SCALING,
  STREAM_POLLS_PER_SECOND,
} from './quotas';
import type { ModelResult } from './stats';

/** The target: the slot's last webhook within 5 minutes of its last answer. */
const DELIVERY_TARGET_SECONDS = 300;

/** The stack's bounds of `webhookConcurrency` (lib/cdk/webhooks.ts). */
const CONCURRENCY_RANGE = { min: 2, max: 100 } as const;

/**
 * Assumed, not measured: the Region's times along the path (a GetRecords, a forwarder invocation's
 * own time, a SendMessageBatch, a message's receive and invoke), the delivery function's CPU per
 * message (a signature, a JSON body, three SDK calls), the endpoints' answer (the issue's 200 ms),
 * and what a delivery writes: by message, its record created (claimed) and settled, each on the
 * table (1 unit: under 1 KB), its endpoint's list (GSI1, every attribute projected) and, while
 * pending, a due shard (GSI2: set, then removed); an object's first event attempted by the fan-out,
 * its record once, on the table and its endpoint's list. The stream's shards: one per partition, the table's peak write
 * rate at 1,000 units a partition.
 */
const CLOUD_PATH = {
  streamReadSeconds: 0.02,
  forwardSeconds: 0.03,
  sendSeconds: 0.015,
  receiveSeconds: 0.05,
  cpuSeconds: 0.002,
  answerSeconds: 0.2,
  writes: { table: 6, endpointList: 2, dueShard: 2 },
  firstWrites: { table: 2, endpointList: 1, dueShard: 0 },
} as const;

/** The delivery path as lib/cdk deploys it, with `concurrency` invocations on the webhook queue. */
export function cloudPath(
  concurrency: number,
  shards: number,
  callSeconds: number = REGION.ddbCallSeconds,
): DeliveryPath {
  return {
    shards,
    idleWaitSeconds: { first: 1 / STREAM_POLLS_PER_SECOND, max: 1 / STREAM_POLLS_PER_SECOND },
    streamReadSeconds: CLOUD_PATH.streamReadSeconds,
    // The stream's event source: batches of 100 (lib/cdk/notifications.ts), filtered to new
    // events and outbox items before they count.
    readLimit: 100,
    recordsPerEvent: 1,
    forwardSeconds: CLOUD_PATH.forwardSeconds,
    sendSeconds: CLOUD_PATH.sendSeconds,
    receiveSeconds: CLOUD_PATH.receiveSeconds,
    concurrency,
    batchSize: WEBHOOK_DELIVERY.batchSize,
    scaling: { initial: SQS_SOURCE_SCALING.initial, perSecond: SQS_SOURCE_SCALING.perMinute / 60 },
    callSeconds,
    ...FUNCTION_CALLS,
    cpuSeconds: CLOUD_PATH.cpuSeconds,
    perEndpoint: PER_ENDPOINT_IN_FLIGHT,
    answerSeconds: CLOUD_PATH.answerSeconds,
    writes: CLOUD_PATH.writes,
    firstWrites: CLOUD_PATH.firstWrites,
    dueShards: WEBHOOK_DUE_SHARDS,
  };
}

/** The delivery function's reserved concurrency for `concurrency` (lib/cdk/webhooks.ts). */
export const deliveryReserved = (concurrency: number): number =>
  concurrency + WEBHOOK_DELIVERY.slowConcurrency + WEBHOOK_DELIVERY.reserveHeadroom;

/** Every processing function's reservation in prod, together. */
export const processingReserved = (): number =>
  Object.values(PROCESSING_CONCURRENCY.prod).reduce((a, b) => a + b, 0);

interface AtConcurrency {
  concurrency: number;
  reserved: number;
  /** The account's concurrency left unreserved (Lambda keeps at least 100): the API's and the forwarder's. */
  unreserved: number;
  result: DeliveryResult;
  /** The target met: the last webhook within 5 minutes of the last answer. */
  met: boolean;
}

/**
 * Webhooks that keep pace with the answers: a payment's answer to its webhook within 10 s at p99
 * (item 1's target for one group on the local runtime, asked of the slot here).
 */
const PACE_P99_SECONDS = 10;

export interface SlotDeliveries {
  shards: number;
  target: number;
  paceP99Seconds: number;
  /** At prod's `webhookConcurrency` as deployed (WEBHOOK_DELIVERY.prodConcurrency), and at dev's (prod's before issue 36). */
  deployed: AtConcurrency;
  devDefault: AtConcurrency;
  /** The least `webhookConcurrency` that meets the target, and that keeps pace (none: not within the stack's 100). */
  least?: AtConcurrency;
  pace?: AtConcurrency;
  processingReserved: number;
  /**
   * Processing run again with the deliveries' writes on the table beside its own (at prod's
   * `webhookConcurrency`): its last answer, the table's combined peak, and the deliveries' writes
   * that found the table full.
   */
  processing: {
    deliveriesAt: number;
    lastAnswerSeconds: number;
    withDeliveriesSeconds: number;
    peakTableWcu: { processing: number; deliveries: number; together: number; cap: number };
    writesThrottled: number;
  };
}

const strip = ({ tableWrites: _, ...result }: ReturnType<typeof runDeliveries>): DeliveryResult => result;

/**
 * The slot's webhooks: `events` as the processing run (`input`, `processing`) wrote them. A merchant
 * has one endpoint, subscribed to every event of its groups and payments.
 */
export function slotDeliveries(
  input: ModelInput,
  processing: ModelResult,
  events: readonly SlotEvent[],
): SlotDeliveries {
  const shards = Math.max(1, Math.ceil(processing.peakTableWcu / DDB_PARTITION_WCU));
  const callSeconds: number = input.region?.ddbCallSeconds ?? REGION.ddbCallSeconds;
  const reservedByProcessing = processingReserved();
  const writes = new Map<number, TableWrites>();
  const tried = new Map<number, AtConcurrency>();
  const at = (concurrency: number): AtConcurrency => {
    const known = tried.get(concurrency);
    if (known) return known;
    const run = runDeliveries(events, cloudPath(concurrency, shards, callSeconds), input.seed);
    writes.set(concurrency, run.tableWrites);
    const reserved = deliveryReserved(concurrency);
    const result = strip(run);
    const out = {
      concurrency,
      reserved,
      unreserved: LAMBDA_ACCOUNT_CONCURRENCY - reservedByProcessing - reserved,
      result,
      met: result.afterLastSeconds <= DELIVERY_TARGET_SECONDS,
    };
    tried.set(concurrency, out);
    return out;
  };
  // The most the stack allows and the account's unreserved minimum leaves.
  const most = Math.min(
    CONCURRENCY_RANGE.max,
    LAMBDA_ACCOUNT_CONCURRENCY - reservedByProcessing - LAMBDA_MIN_UNRESERVED - deliveryReserved(0),
  );
  /** The least concurrency meeting `ok` (bisection: more invocations never deliver later here). */
  const leastMeeting = (ok: (a: AtConcurrency) => boolean, from: number): AtConcurrency | undefined => {
    if (!ok(at(most))) return undefined;
    let [lo, hi] = [from - 1, most];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (ok(at(mid))) hi = mid;
      else lo = mid;
    }
    return at(hi);
  };
  const deployed = at(WEBHOOK_DELIVERY.prodConcurrency);
  const devDefault = at(WEBHOOK_DELIVERY.concurrency);
  const least = leastMeeting((a) => a.met, CONCURRENCY_RANGE.min);
  const pace = leastMeeting(
    (a) => a.result.lag.p99 <= PACE_P99_SECONDS,
    least?.concurrency ?? CONCURRENCY_RANGE.min,
  );
  const chosen = deployed;
  const again = runModel({ ...input, onEvent: undefined, otherTableWrites: writes.get(chosen.concurrency) });
  return {
    shards,
    target: DELIVERY_TARGET_SECONDS,
    paceP99Seconds: PACE_P99_SECONDS,
    deployed,
    devDefault,
    ...(least && { least }),
    ...(pace && { pace }),
    processingReserved: reservedByProcessing,
    processing: {
      deliveriesAt: chosen.concurrency,
      lastAnswerSeconds: processing.lastAnswerSeconds,
      withDeliveriesSeconds: again.lastAnswerSeconds,
      peakTableWcu: {
        processing: processing.peakTableWcu,
        deliveries: chosen.result.peakTableWcu,
        together: again.peakTableWcu,
        cap: input.limits?.tableWcu ?? DDB_TABLE_MAX_WCU,
      },
      writesThrottled: again.otherWritesThrottled + again.tableThrottled,
    },
  };
}

/** A run's events as the deliveries' model takes them: each group its own merchant's unless `merchantOf` says. */
export function eventRecorder(merchantOf: (g: number) => number = (g) => g) {
  const events: SlotEvent[] = [];
  return {
    events,
    onEvent: (g: number, at: number, kind: 'payment' | 'group') =>
      events.push({ at, endpoint: merchantOf(g), first: kind === 'payment' }),
  };
}
