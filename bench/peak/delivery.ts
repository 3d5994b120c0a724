/**
 * The busiest slot's webhooks (issue 36 item 3): a discrete-event model of the way every event of
 * the slot takes to its endpoint (docs/architecture.md "Webhooks"), fed with the times the
 * processing model (model.ts, `onEvent`) or a local run (bench/sections/delivery-model.ts) wrote
 * the events:
 *
 * - the table's stream: the events spread over its shards; each shard read one batch at a time
 *   (a read returns what was written before it began, `readLimit` records at most, of which an
 *   event is `recordsPerEvent`), again at once after a batch and after `idleWaitSeconds` (doubling
 *   to its `max`) after a read that found nothing;
 * - the stream forwarder: one invocation per batch and shard, its SendMessageBatch calls one after
 *   another (lambdas/shared/sqs-queue.ts), then the messages are on the webhook queue;
 * - the webhook queue and its event source: first in, first out, batches of `batchSize`, at most
 *   `concurrency` invocations at once (the event source's maximum, within the function's reserved
 *   concurrency), scaled up from `scaling.initial` by `scaling.perSecond` where the source scales;
 * - the delivery function (core/webhook-delivery.ts): the batch's events and the merchant's
 *   endpoints read at once; for each message its calls before the attempt (an object's first
 *   event: none, the fan-out attempts it at once; a later event: the fan-out's two writes and a
 *   delivery message, whose turn reads the delivery, the order rule's Query, the cursor and claims
 *   it), its CPU (one message after another in a container), the signed POST in one of the
 *   endpoint's `perEndpoint` slots of the invocation, answered after `answerSeconds`, and the
 *   delivery's record (a first event's written once with the cursor, a later one's settled); the
 *   invocation ends with its last message (and its messages sent).
 *
 * The webhook arrives when its POST is sent. Every delivery writes `writes` units (`firstWrites`
 * for a first event's) on the table, its endpoint's deliveries list (GSI1
 * `WHDELIVERIES#<endpoint>`) and one of the due index's shards (GSI2 `WHDUE#0..3`), counted per
 * second.
 */
import { EventQueue, seededRandom } from './queue';
import type { Percentiles } from './stats';

/** One event of the slot: when it was written, its endpoint, and whether it is its object's first. */
export interface SlotEvent {
  at: number;
  endpoint: number;
  first: boolean;
  /** Its answer, when that was before `at` (the local check: a write's commit on a busy DynamoDB Local); lags count from it. */
  answeredAt?: number;
}

export interface DeliveryPath {
  /** The stream's shards, each read by one poller, one batch at a time. */
  shards: number;
  /** One reader for every shard, reading them in turn (the local runtime's), not one each (Lambda's). */
  oneReader?: boolean;
  /** The wait after a read that found nothing: `first`, doubled after each such read up to `max`. */
  idleWaitSeconds: { first: number; max: number };
  /** A read of the stream (GetRecords). */
  streamReadSeconds: number;
  /** Records a read returns at most, and records of the stream per event (its own, and others' writes where nothing filters them). */
  readLimit: number;
  recordsPerEvent: number;
  /** A forwarder invocation's own time, and each SendMessageBatch call of 10 messages (one after another). */
  forwardSeconds: number;
  sendSeconds: number;
  /** From a message's being visible to its batch's invocation (the source's receive, Lambda's invoke). */
  receiveSeconds: number;
  /** Invocations of the delivery function at once (the event source's maximum) and messages per batch. */
  concurrency: number;
  batchSize: number;
  /** The event source's scaling: invocations at first, and more each second (none: all at once). */
  scaling?: { initial: number; perSecond: number };
  /** A DynamoDB call. */
  callSeconds: number;
  /** Calls of a batch before its messages (the events' BatchGetItem and the endpoints' Query, at once: 1). */
  batchCalls: number;
  /** Calls of a message before its attempt: an object's first event, a later event's turn; and after it (the settle). */
  callsBeforeFirst: number;
  callsBeforeLater: number;
  callsAfter: number;
  /** A later event's fan-out: its calls (the delivery record, the cursor) before its delivery message. */
  fanOutCalls: number;
  /** CPU per message, one after another in an invocation. */
  cpuSeconds: number;
  /**
   * How much slower than its mean an invocation that begins at a given second runs (its calls,
   * CPU and requests alike): the local run's measured pace, where DynamoDB Local and the receiver
   * share two cores with the processing. None: every invocation at the mean.
   */
  pace?: (seconds: number) => number;
  /** Requests to one endpoint in flight at once in one invocation. */
  perEndpoint: number;
  /** The endpoint's answer. */
  answerSeconds: number;
  /** Write units a delivery by message puts on the table (indexes included), its endpoint's list and a due shard. */
  writes: { table: number; endpointList: number; dueShard: number };
  /** The same for an object's first event attempted by the fan-out: its record written once, as the attempt left it. */
  firstWrites: { table: number; endpointList: number; dueShard: number };
  dueShards: number;
}

export interface DeliveryResult {
  events: number;
  lastEventSeconds: number;
  lastWebhookSeconds: number;
  /** The last webhook after the last event was written. */
  afterLastSeconds: number;
  /** An event's write → its webhook, seconds. */
  lag: Percentiles;
  /** Invocations of the delivery function at once at most, their count, messages per invocation. */
  peakInvocations: number;
  invocations: number;
  /** An invocation's mean time, seconds (from its receive to its end). */
  meanInvocationSeconds: number;
  messagesPerInvocation: number;
  /** Forwarder invocations at once at most (a shard's one at a time). */
  peakForwarders: number;
  /** The longest a message waited on the webhook queue, seconds. */
  maxQueueWaitSeconds: number;
  /** Peak write units a second the deliveries put on the table, on one endpoint's list, on one due shard. */
  peakTableWcu: number;
  peakEndpointListWcu: number;
  peakDueShardWcu: number;
}

/**
 * The delivery function's DynamoDB calls (core/webhook-delivery.ts): a batch's events and its
 * merchants' endpoints read at once (1); an object's first event is attempted by the fan-out before
 * any write (0 calls before its POST), then its record and the object's cursor written at once (1
 * round trip); a later event's fan-out writes its delivery record and the cursor and sends a
 * message (2), whose turn reads the delivery, makes the order rule's Query, reads the cursor and
 * claims it (4); after the request, the settle (1).
 */
export const FUNCTION_CALLS = {
  batchCalls: 1,
  callsBeforeFirst: 0,
  callsBeforeLater: 4,
  callsAfter: 1,
  fanOutCalls: 2,
} as const;

/** Amounts per interval (a second unless given), added in any order. */
class PerInterval {
  readonly amounts = new Map<number, number>();
  constructor(readonly seconds = 1) {}
  add(t: number, n: number): void {
    const s = Math.floor(t / this.seconds);
    this.amounts.set(s, (this.amounts.get(s) ?? 0) + n);
  }
  get max(): number {
    let m = 0;
    for (const v of this.amounts.values()) if (v > m) m = v;
    return m;
  }
}

/** The deliveries' write units on the table by tenth of a second: [its start, units]. */
export type TableWrites = [number, number][];

interface Message {
  event: number;
  /** The fan-out of the event, or (a later event's) the delivery's turn. */
  turn: boolean;
  visibleAt: number;
}

/** Nearest-rank percentiles of sorted `values` (stats.ts percentiles, without sorting a copy). */
const sortedPercentiles = (sorted: Float64Array): Percentiles => {
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return { p50: at(50), p99: at(99), max: sorted[sorted.length - 1] ?? NaN };
};

/** The deliveries of `events` (in any order) along `path`. */
export function runDeliveries(
  events: readonly SlotEvent[],
  path: DeliveryPath,
  seed = 1,
): DeliveryResult & { tableWrites: TableWrites } {
  const q = new EventQueue();
  const random = seededRandom(seed);
  // The processing model writes its events in time order: sorted only when they are not.
  const order = events.map((_, i) => i);
  if (events.some((e, i) => i > 0 && e.at < events[i - 1]!.at))
    order.sort((a, b) => events[a]!.at - events[b]!.at);
  const arrived = new Float64Array(events.length).fill(NaN);
  const perRead = Math.max(1, Math.floor(path.readLimit / path.recordsPerEvent));

  // The stream: each event on a shard (its item's partition, drawn), each shard read in turn.
  const shards = Array.from({ length: path.shards }, () => ({ events: [] as number[], next: 0 }));
  for (const i of order) shards[Math.floor(random() * path.shards)]!.events.push(i);
  let forwarding = 0;
  let peakForwarders = 0;
  /** Shard `s`'s next batch: the events written before the read began, `perRead` at most. */
  const take = (s: number): number[] => {
    const shard = shards[s]!;
    const batch: number[] = [];
    while (batch.length < perRead && shard.next < shard.events.length) {
      const i = shard.events[shard.next]!;
      if (events[i]!.at > q.now) break;
      batch.push(i);
      shard.next++;
    }
    return batch;
  };
  const unread = (s: number) => shards[s]!.next < shards[s]!.events.length;
  const idleWait = (quiet: number) =>
    Math.min(path.idleWaitSeconds.max, path.idleWaitSeconds.first * 2 ** quiet);
  /** The forwarder's invocation of `batch`: its messages on the queue when it ends, then `next`. */
  const forward = (batch: number[], next: () => void) => {
    peakForwarders = Math.max(peakForwarders, ++forwarding);
    const seconds =
      path.streamReadSeconds + path.forwardSeconds + Math.ceil(batch.length / 10) * path.sendSeconds;
    q.after(seconds, () => {
      forwarding--;
      send(batch.map((i) => ({ event: i, turn: false, visibleAt: q.now })));
      next();
    });
  };
  /** Lambda's poller of shard `s`. */
  const read = (s: number, quiet: number) => {
    const batch = take(s);
    if (batch.length > 0) return forward(batch, () => read(s, 0));
    if (unread(s)) q.after(path.streamReadSeconds + idleWait(quiet), () => read(s, quiet + 1));
  };
  /** The local runtime's reader: every shard in turn (`s`), a wait after a pass that found nothing. */
  const pass = (s: number, found: boolean, quiet: number): void => {
    if (s === path.shards) {
      if (!shards.some((_, k) => unread(k))) return;
      return found ? pass(0, false, 0) : q.after(idleWait(quiet), () => pass(0, false, quiet + 1));
    }
    const batch = take(s);
    if (batch.length > 0) return forward(batch, () => pass(s + 1, true, quiet));
    q.after(path.streamReadSeconds, () => pass(s + 1, found, quiet));
  };

  // The webhook queue and the delivery function's invocations.
  const queue: Message[] = [];
  let head = 0;
  let busy = 0;
  let peakInvocations = 0;
  let invocations = 0;
  let messages = 0;
  let maxQueueWait = 0;
  let invocationSeconds = 0;
  let firstMessageAt = NaN;
  let wakeAt = NaN;
  const table = new PerInterval();
  const tenths = new PerInterval(0.1);
  const lists = new Map<number, PerInterval>();
  const dues = Array.from({ length: path.dueShards }, () => new PerInterval());
  const cap = () => {
    if (!path.scaling) return path.concurrency;
    const grown = path.scaling.initial + Math.floor((q.now - firstMessageAt) * path.scaling.perSecond);
    return Math.min(path.concurrency, grown);
  };
  /** Messages sent together (a SendMessageBatch's), received together where the source can. */
  const send = (sent: Message[]) => {
    if (Number.isNaN(firstMessageAt)) firstMessageAt = q.now;
    queue.push(...sent);
    dispatch();
  };
  const dispatch = () => {
    while (busy < cap() && head < queue.length) {
      const batch = queue.slice(head, head + path.batchSize);
      head += batch.length;
      invoke(batch);
    }
    // Held by the source's scaling: look again when it allows one more.
    if (head < queue.length && busy < path.concurrency && path.scaling && !(wakeAt > q.now)) {
      wakeAt = q.now + 1 / path.scaling.perSecond;
      q.at(wakeAt, dispatch);
    }
  };
  const written = (endpoint: number, at: number, event: number, first: boolean) => {
    const w = first ? path.firstWrites : path.writes;
    table.add(at, w.table);
    tenths.add(at, w.table);
    let list = lists.get(endpoint);
    if (!list) lists.set(endpoint, (list = new PerInterval()));
    list.add(at, w.endpointList);
    dues[event % path.dueShards]!.add(at, w.dueShard);
  };
  const invoke = (batch: Message[]) => {
    peakInvocations = Math.max(peakInvocations, ++busy);
    invocations++;
    messages += batch.length;
    const began = q.now + path.receiveSeconds;
    for (const m of batch) maxQueueWait = Math.max(maxQueueWait, began - m.visibleAt);
    const pace = path.pace?.(began) ?? 1;
    const call = path.callSeconds * pace;
    const cpu = path.cpuSeconds * pace;
    const answer = path.answerSeconds * pace;
    const start = began + path.batchCalls * call;
    // Each endpoint's slots of this invocation: when each is free again.
    const slots = new Map<number, number[]>();
    const later: Message[] = [];
    let end = start;
    const ready = batch.map((m, k) => {
      const e = events[m.event]!;
      const attempt = e.first || m.turn;
      const calls = !attempt ? path.fanOutCalls : e.first ? path.callsBeforeFirst : path.callsBeforeLater;
      return { m, e, attempt, at: start + calls * call + (k + 1) * cpu };
    });
    for (const r of [...ready].sort((a, b) => a.at - b.at)) {
      if (!r.attempt) {
        // A later event's fan-out: its record and cursor written, its turn by a message of its own.
        later.push({ event: r.m.event, turn: true, visibleAt: NaN });
        end = Math.max(end, r.at);
        continue;
      }
      let free = slots.get(r.e.endpoint);
      if (!free) slots.set(r.e.endpoint, (free = Array.from({ length: path.perEndpoint }, () => 0)));
      const slot = free.indexOf(Math.min(...free));
      const post = Math.max(r.at, free[slot]!);
      free[slot] = post + answer;
      arrived[r.m.event] = post;
      const done = post + answer + path.callsAfter * call;
      // The fan-out's attempt writes its record after the answer; a turn claimed its record before.
      const direct = !r.m.turn;
      written(r.e.endpoint, direct ? post + answer : r.at, r.m.event, direct);
      end = Math.max(end, done);
    }
    if (later.length > 0) end += Math.ceil(later.length / 10) * path.sendSeconds;
    invocationSeconds += end - began;
    q.at(end, () => {
      busy--;
      if (later.length > 0) send(later.map((m) => ({ ...m, visibleAt: q.now })));
      else dispatch();
    });
  };

  if (path.oneReader) q.at(0, () => pass(0, false, 0));
  else for (let s = 0; s < path.shards; s++) q.at(0, () => read(s, 0));
  q.run();

  const lags = new Float64Array(events.length);
  let lastWebhook = 0;
  let lastEvent = 0;
  for (let i = 0; i < events.length; i++) {
    const answered = events[i]!.answeredAt ?? events[i]!.at;
    lastEvent = Math.max(lastEvent, answered);
    lastWebhook = Math.max(lastWebhook, arrived[i]!);
    lags[i] = arrived[i]! - answered;
  }
  lags.sort();
  return {
    events: events.length,
    lastEventSeconds: lastEvent,
    lastWebhookSeconds: lastWebhook,
    afterLastSeconds: lastWebhook - lastEvent,
    lag: sortedPercentiles(lags),
    peakInvocations,
    invocations,
    messagesPerInvocation: invocations === 0 ? 0 : messages / invocations,
    meanInvocationSeconds: invocations === 0 ? 0 : invocationSeconds / invocations,
    peakForwarders,
    maxQueueWaitSeconds: maxQueueWait,
    peakTableWcu: table.max,
    peakEndpointListWcu: Math.max(0, ...[...lists.values()].map((l) => l.max)),
    peakDueShardWcu: Math.max(0, ...dues.map((d) => d.max)),
    tableWrites: [...tenths.amounts].map(([k, units]) => [k * tenths.seconds, units]),
  };
}
