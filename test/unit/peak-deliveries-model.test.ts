/**
 * The busiest slot's webhook model (bench/peak/delivery.ts): tiny paths whose webhooks are worked
 * out by hand below, the cloud's path as lib/cdk deploys it, and the local check's inputs
 * (bench/sections/delivery-model.ts).
 */
import { FUNCTION_CALLS, runDeliveries, type DeliveryPath, type SlotEvent } from '../../bench/peak/delivery';
import { cloudPath, deliveryReserved, processingReserved } from '../../bench/peak/slot-deliveries';
import { localPath, measuredEvents, paceOf } from '../../bench/sections/delivery-model';
import { WEBHOOK_DELIVERY } from '#contract/webhooks';
import { PROCESSING_CONCURRENCY } from '#contract/processing';

/** One shard read every 0.25 s, reads and sends free, a call 10 ms, 50 ms to an invocation, 1 s an answer. */
const path = (over: Partial<DeliveryPath> = {}): DeliveryPath => ({
  shards: 1,
  idleWaitSeconds: { first: 0.25, max: 0.25 },
  streamReadSeconds: 0,
  readLimit: 100,
  recordsPerEvent: 1,
  forwardSeconds: 0.1,
  sendSeconds: 0,
  receiveSeconds: 0.05,
  concurrency: 10,
  batchSize: 10,
  callSeconds: 0.01,
  ...FUNCTION_CALLS,
  cpuSeconds: 0,
  perEndpoint: 4,
  answerSeconds: 1,
  writes: { table: 6, endpointList: 2, dueShard: 2 },
  firstWrites: { table: 2, endpointList: 1, dueShard: 0 },
  dueShards: 4,
  ...over,
});
const first = (at: number, endpoint = 0): SlotEvent => ({ at, endpoint, first: true });

describe('runDeliveries on a tiny path', () => {
  it("one payment's answer: read at the next poll, forwarded, received, its batch's read, then the POST (no write before it)", () => {
    const r = runDeliveries([first(0.1)], path());
    // Polls at 0 (nothing) and 0.25; on the queue at 0.35; invoked at 0.40; 1 call: POST at 0.41.
    expect(r.lastWebhookSeconds).toBeCloseTo(0.41);
    expect(r.lag.max).toBeCloseTo(0.31);
    expect(r.afterLastSeconds).toBeCloseTo(0.31);
    expect(r.invocations).toBe(1);
    // Its invocation: the batch's read, the POST's answer (1 s) and its record written after it.
    expect(r.meanInvocationSeconds).toBeCloseTo(0.01 + 1 + 0.01);
  });

  it('an endpoint takes 4 requests at a time in an invocation; 10 endpoints take 10 at once', () => {
    const one = runDeliveries(
      Array.from({ length: 10 }, () => first(0)),
      path(),
    );
    // All in one batch (read at 0): POSTs at 0.16 (4), 1.16 (4), 2.16 (2).
    expect(one.invocations).toBe(1);
    expect(one.lag.max).toBeCloseTo(2.16);
    const ten = runDeliveries(
      Array.from({ length: 10 }, (_, k) => first(0, k)),
      path(),
    );
    expect(ten.lag.max).toBeCloseTo(0.16);
    // Each record written once its answer came (2 units on the table, 1 on its endpoint's list):
    // the ten endpoints' at 1.16; the one endpoint's in its rounds, 4 at 1.16, 4 at 2.16, 2 at 3.16.
    expect(ten.peakEndpointListWcu).toBe(1);
    expect(ten.peakTableWcu).toBe(20);
    expect(one.peakEndpointListWcu).toBe(4);
    expect(one.peakTableWcu).toBe(8);
  });

  it("a later event (not its object's first) goes by a message of its own: a second invocation, 4 calls before its POST", () => {
    const r = runDeliveries([{ at: 0, endpoint: 0, first: false }], path());
    // Fan-out invoked at 0.15: batch read and 2 writes (0.18), its message sent; the turn invoked
    // at 0.23, its batch read and 4 calls: the POST at 0.28.
    expect(r.lastWebhookSeconds).toBeCloseTo(0.28);
    expect(r.invocations).toBe(2);
  });

  it('invocations are bounded by the concurrency (and by the source scaling up): more never deliver later', () => {
    const events = Array.from({ length: 400 }, (_, k) => first(0, k));
    const at = (concurrency: number, scaling?: DeliveryPath['scaling']) =>
      runDeliveries(events, path({ concurrency, scaling }));
    const two = at(2);
    const ten = at(10);
    expect(two.peakInvocations).toBe(2);
    expect(ten.peakInvocations).toBe(10);
    expect(ten.invocations).toBe(40);
    expect(ten.lastWebhookSeconds).toBeLessThan(two.lastWebhookSeconds);
    // 40 batches, each 1.07 s from its receive to the next's (50 ms, the batch's read, the answer,
    // the record): 2 at a time 20 rounds, 10 at a time 4; the first POSTs at 0.16.
    expect(two.lastWebhookSeconds).toBeCloseTo(0.16 + 19 * 1.07);
    expect(ten.lastWebhookSeconds).toBeCloseTo(0.16 + 3 * 1.07);
    const scaled = at(10, { initial: 2, perSecond: 1 });
    expect(scaled.lastWebhookSeconds).toBeGreaterThan(ten.lastWebhookSeconds);
    expect(scaled.lastWebhookSeconds).toBeLessThan(two.lastWebhookSeconds);
  });

  it('an invocation at a slower pace takes longer in every part (calls, answers), so the queue behind it waits', () => {
    // 40 answers at 0.1-4 s, one endpoint, 1 invocation at a time: the even path keeps up.
    const events = Array.from({ length: 40 }, (_, i) => first(0.1 + i * 0.1));
    const even = runDeliveries(events, path({ concurrency: 1, answerSeconds: 0.1 }));
    const slowFrom2 = runDeliveries(
      events,
      path({ concurrency: 1, answerSeconds: 0.1, pace: (t) => (t >= 2 ? 3 : 1) }),
    );
    expect(slowFrom2.meanInvocationSeconds).toBeGreaterThan(even.meanInvocationSeconds);
    expect(slowFrom2.lag.p99).toBeGreaterThan(2 * even.lag.p99);
    // A pace of 1 everywhere is the path without one.
    expect(runDeliveries(events, path({ concurrency: 1, answerSeconds: 0.1, pace: () => 1 }))).toEqual(even);
  });

  it("one reader for every shard (the local runtime's) reads them in turn; one poller each reads them at once", () => {
    const events = Array.from({ length: 8 }, (_, k) => first(0, k));
    const slow = { shards: 8, streamReadSeconds: 0.5, forwardSeconds: 0, receiveSeconds: 0 };
    const each = runDeliveries(events, path(slow));
    const one = runDeliveries(events, path({ ...slow, oneReader: true }));
    expect(each.peakForwarders).toBeGreaterThan(1);
    expect(one.peakForwarders).toBe(1);
    expect(one.lastWebhookSeconds).toBeGreaterThan(each.lastWebhookSeconds + 1);
  });
});

describe('the cloud path and the reservations', () => {
  it("reads the deployed path: batches of 10, 4 requests to an endpoint, the stream's 4 polls a second, reservations as lib/cdk sets them", () => {
    const p = cloudPath(WEBHOOK_DELIVERY.concurrency, 30);
    expect(p).toMatchObject({
      batchSize: 10,
      perEndpoint: 4,
      concurrency: 10,
      shards: 30,
      answerSeconds: 0.2,
    });
    expect(p.idleWaitSeconds).toEqual({ first: 0.25, max: 0.25 });
    expect(p.scaling).toEqual({ initial: 5, perSecond: 5 });
    expect(deliveryReserved(10)).toBe(14);
    expect(processingReserved()).toBe(Object.values(PROCESSING_CONCURRENCY.prod).reduce((a, b) => a + b, 0));
  });
});

describe("the local check's inputs", () => {
  const measured = {
    payments: 6,
    events: 8,
    processingSeconds: 3,
    deliveryConcurrency: 2,
    answersPerSecond: [0, 4, 2],
    ddbCallMs: 10,
    pipeline: {
      streamReads: 8,
      streamRecords: 80,
      streamReadMs: { count: 8, meanMs: 5, maxMs: 5 },
      forwarderMs: { count: 8, meanMs: 1, maxMs: 1 },
      streamLagMs: { count: 8, meanMs: 100, maxMs: 100 },
      streamShards: 3,
      streamPassMs: { count: 8, meanMs: 15, maxMs: 15 },
      queueSent: 8,
      queueWaitMs: { count: 8, meanMs: 0, maxMs: 0 },
      invocationMs: { count: 4, meanMs: 600, maxMs: 900 },
      messagesPerInvocation: 2,
    },
  } as unknown as Parameters<typeof localPath>[0];

  it("spreads each second's answers over it, with the group's two events at the trigger and at group.processed", () => {
    const events = measuredEvents(measured);
    expect(events.map((e) => e.at)).toEqual([0, 1.125, 1.375, 1.625, 1.875, 2.25, 2.75, 3]);
    expect(events.filter((e) => e.first)).toHaveLength(6);
  });

  it("takes each event as readable as far behind its answer as the run's stream was then, and counts its lag from the answer", () => {
    const lagged = { ...measured, streamLag: [[1, 2, 500]] as [number, number, number][] };
    const events = measuredEvents(lagged);
    // 1.125 s and 1.875 s lie in the lagged second: readable 0.5 s later; the others at once.
    expect(events.map((e) => e.at)).toEqual([0, 1.625, 1.875, 2.125, 2.375, 2.25, 2.75, 3]);
    expect(events.map((e) => e.answeredAt)).toEqual([0, 1.125, 1.375, 1.625, 1.875, 2.25, 2.75, 3]);
    const one = runDeliveries([{ at: 1.5, answeredAt: 1, endpoint: 0, first: true }], path());
    const unlagged = runDeliveries([{ at: 1.5, endpoint: 0, first: true }], path());
    expect(one.lag.max).toBeCloseTo(unlagged.lag.max + 0.5);
  });

  it("takes the run's own times and fits the request's so that the model's invocations take the run's mean", () => {
    const events = measuredEvents(measured);
    const p = localPath(measured, events);
    expect(p).toMatchObject({
      shards: 3,
      oneReader: true,
      recordsPerEvent: 10,
      callSeconds: 0.01,
      concurrency: 2,
    });
    expect(runDeliveries(events, p).meanInvocationSeconds).toBeCloseTo(0.6, 2);
    expect(p.pace).toBeUndefined();
  });

  it("takes the run's pace: an interval's handler time per message against the run's mean, one invocation ahead", () => {
    // The mean: 600 ms for 2 messages = 300 ms a message; 1-2 s ran at 600 (2x), 2-3 s at 150 (0.5x).
    const paced = {
      ...measured,
      invocationPace: [
        [1, 2, 600],
        [2, 3, 150],
      ] as [number, number, number][],
    };
    const pace = paceOf(paced)!;
    // An invocation beginning at t is looked up at t + 0.6 s (about its end).
    expect(pace(0)).toBe(1);
    expect(pace(0.5)).toBe(2);
    expect(pace(1.5)).toBe(0.5);
    expect(pace(2.5)).toBe(1);
    const events = measuredEvents(paced);
    const p = localPath(paced, events);
    expect(p.pace?.(0.5)).toBe(2);
    expect(runDeliveries(events, p).meanInvocationSeconds).toBeCloseTo(0.6, 2);
  });

  it("takes the run's DynamoDB Local calls as its pace where it measured them, not a batch's time per message", () => {
    // Calls of 20 ms in 1-2 s (2x the run's 10 ms), 5 ms in 2-3 s (0.5x). The time per message
    // says 6x in 1-2 s: batches of one message there, each with its invocation's calls alone.
    const paced = {
      ...measured,
      invocationPace: [[1, 2, 1800]] as [number, number, number][],
      callPace: [
        [1, 2, 20],
        [2, 3, 5],
      ] as [number, number, number][],
    };
    const pace = paceOf(paced)!;
    // An invocation beginning at t is looked up at t + 0.3 s (its middle).
    expect(pace(0.5)).toBe(1);
    expect(pace(0.8)).toBe(2);
    expect(pace(1.8)).toBe(0.5);
    expect(pace(2.8)).toBe(1);
  });
});
