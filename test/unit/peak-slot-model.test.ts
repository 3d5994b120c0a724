/**
 * The busiest slot's model (bench/peak/): its event queue, its token buckets and Lambda pool, its
 * workload, and two tiny slots whose answers are worked out by hand below.
 */
import {
  groupSizes,
  paymentCosts,
  writeUnits,
  serviceSettings,
  type PaymentCosts,
  type RetryPolicy,
} from '../../bench/peak/inputs';
import { LambdaPool } from '../../bench/peak/lambda';
import { runModel, type ModelInput } from '../../bench/peak/model';
import { eventRecorder, slotDeliveries } from '../../bench/peak/slot-deliveries';
import { EventQueue, seededRandom } from '../../bench/peak/queue';
import { PeakPerSecond, TokenBucket } from '../../bench/peak/quotas';
import { percentiles } from '../../bench/peak/stats';
import { verdicts, type PeakRun } from '../../bench/peak/report';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY_SHARDS } from '#store/day-index';
import { SWEEP_SHARDS } from '#store/keys';

describe('EventQueue', () => {
  it('runs events in time order, and same-time events in the order they were scheduled', () => {
    const q = new EventQueue();
    const seen: string[] = [];
    q.at(2, () => seen.push('c'));
    q.at(1, () => {
      seen.push('a');
      q.after(0, () => seen.push('b')); // same instant as 'a2', scheduled after it
      q.after(1.5, () => seen.push('d'));
    });
    q.at(1, () => seen.push('a2'));
    q.run();
    expect(seen).toEqual(['a', 'a2', 'b', 'c', 'd']);
    expect(q.now).toBe(2.5);
    expect(q.processed).toBe(5);
  });

  it('stops at `until` and refuses an event in the past', () => {
    const q = new EventQueue();
    const seen: number[] = [];
    for (const t of [5, 1, 3]) q.at(t, () => seen.push(t));
    q.run(3);
    expect(seen).toEqual([1, 3]);
    expect(() => q.at(2, () => undefined)).toThrow(/before now/);
    q.run();
    expect(seen).toEqual([1, 3, 5]);
  });

  it('keeps a thousand shuffled events in order', () => {
    const q = new EventQueue();
    const random = seededRandom(7);
    const times = Array.from({ length: 1000 }, () => Math.floor(random() * 100));
    const seen: number[] = [];
    for (const t of times) q.at(t, () => seen.push(t));
    q.run();
    expect(seen).toEqual([...times].sort((a, b) => a - b));
  });
});

describe('seededRandom', () => {
  it('is the same sequence for the same seed, another for another', () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    const c = seededRandom(2);
    const xs = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xs);
    expect(c()).not.toBe(xs[0]);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('TokenBucket', () => {
  it('lets a full bucket through, then its refill rate', () => {
    const bucket = new TokenBucket(3, 2);
    expect([1, 2, 3, 4].map(() => bucket.tryTake(0))).toEqual([true, true, true, false]);
    expect(bucket.tryTake(0.4)).toBe(false); // 0.8 tokens
    expect(bucket.tryTake(0.5)).toBe(true); // 1 token
    expect(bucket.available(100)).toBe(3); // never above its size
  });

  it('queues reservations: each waits until the tokens it took on credit are refilled', () => {
    const bucket = new TokenBucket(2, 4);
    expect(bucket.reserve(0, 2)).toBe(0);
    expect(bucket.reserve(0, 1)).toBeCloseTo(0.25);
    expect(bucket.reserve(0, 2)).toBeCloseTo(0.75);
    expect(bucket.reserve(1, 1)).toBeCloseTo(0); // 1 s later: 4 refilled, the debt of 3 paid
  });
});

describe('PeakPerSecond and percentiles', () => {
  it('keeps the busiest whole second', () => {
    const peak = new PeakPerSecond();
    for (const [t, n] of [
      [0.1, 2],
      [0.9, 3],
      [1.0, 1],
      [2.5, 4],
      [2.99, 2],
    ] as const)
      peak.add(t, n);
    expect(peak.max).toBe(6);
    expect(peak.maxAt).toBe(2);
    expect(peak.total).toBe(12);
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(values)).toEqual({ p50: 50, p99: 99, max: 100 });
    expect(percentiles([])).toEqual({ p50: NaN, p99: NaN, max: NaN });
  });
});

describe('LambdaPool', () => {
  it('throttles past the account, keeps a reservation apart and counts what the API is left', () => {
    const pool = new LambdaPool({ account: 10, reserved: { BeginGroup: 2 }, api: 3 });
    const batches = Array.from({ length: 6 }, () => pool.tryStart('AuthorizeBatch', 0));
    expect(batches).toEqual([true, true, true, true, true, false]); // 10 - 2 reserved - 3 for the API
    expect([
      pool.tryStart('BeginGroup', 0),
      pool.tryStart('BeginGroup', 0),
      pool.tryStart('BeginGroup', 0),
    ]).toEqual([true, true, false]);
    expect(pool.throttles).toMatchObject({ AuthorizeBatch: 1, BeginGroup: 1 });
    expect(pool.peakProcessing).toBe(7);
    expect(pool.minApiHeadroom).toBe(0);
    pool.end('AuthorizeBatch', 2);
    expect(pool.tryStart('AuthorizeBatch', 0)).toBe(true);
    expect(pool.busySeconds.AuthorizeBatch).toBe(2);
  });
});

describe('groupSizes', () => {
  it("draws the issue's slot: 3,000 groups, 1,000,000 payments, a few of 100,000, most of 20-500; the same for a seed", () => {
    const sizes = groupSizes(1);
    expect(sizes).toHaveLength(3000);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1_000_000);
    expect(sizes.filter((n) => n === 100_000)).toHaveLength(5);
    expect(sizes.filter((n) => n >= 20 && n <= 500).length).toBeGreaterThan(2900);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(20);
    expect(groupSizes(1)).toEqual(sizes);
    expect(groupSizes(2)).not.toEqual(sizes);
  });
});

describe('inputs', () => {
  it("reads the deployed settings and the bench's per-payment costs, naming their sources", () => {
    const service = serviceSettings();
    expect(service.retries.AuthorizeBatch['Lambda.TooManyRequestsException']).toMatchObject({
      maxAttempts: 100,
      maxDelaySeconds: 20,
    });
    expect(service.retries.BeginGroup['Lambda.TooManyRequestsException']).toMatchObject({ maxAttempts: 100 });
    expect(service.retries.CompleteGroup['Lambda.TooManyRequestsException']).toMatchObject({
      maxAttempts: 100,
    });
    expect(service.reserved.AuthorizeBatch).toBeGreaterThan(0);
    expect(service.reserved.AuthorizeFirstBatch).toBeGreaterThan(0);
    expect(service.retries.AuthorizeBatch.ProcessorUnavailable).toBeDefined();
    const costs = paymentCosts(
      JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'results.json'), 'utf8')),
    );
    expect(costs.callsBefore + costs.callsAfter).toBeGreaterThan(0);
    expect(costs.sources.ddbCalls).toMatch(/^bench\/results\.json /);
  });

  it("costs a transaction's writes twice, a sparse index's entry twice (set, then removed), and leaves out the processor's own and the limiter's (the model writes those itself)", () => {
    const units = writeUnits(
      {
        'write.GROUP.tx': 1,
        'write.GROUP': 0.01,
        'write.EVENT.tx': 1,
        'write.TXN': 1,
        'index.EVENTS@EVENT': 1,
        'index.TXN@TXN': 2,
        'index.SWEEP@TXN': 1,
        'write.SANDBOX': 1,
        'index.SANDBOX@SANDBOX': 1,
        'write.RATE': 0.4,
      },
      { GROUP: { writeUnits: 2 }, EVENT: { writeUnits: 2 }, SANDBOX: { writeUnits: 1 } },
    );
    // The group's partition: the answer (2 units) in a transaction, and a share of the group's item.
    expect(units.partitionWriteUnits).toBe(4.02);
    expect(units.merchantIndexWriteUnits).toBe(2);
    // 4.02 + 4 (event, in the transaction) + 1 (sale) + 2 (events index) + 2 (day index) + 2 (sweep index).
    expect(units.tableWriteUnits).toBe(15.02);
    expect(units.indexLoads).toEqual([
      { index: 'EVENTS', unitsPerPayment: 2, partitions: 1, scope: 'merchant' },
      { index: 'SWEEP', unitsPerPayment: 2, partitions: SWEEP_SHARDS, scope: 'table' },
      { index: 'TXN', unitsPerPayment: 2, partitions: DAY_SHARDS, scope: 'table' },
    ]);
  });

  it("counts a charge's own calls: not the limiter's (the model makes them) nor the webhook cursors' (off its path)", () => {
    const results = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'bench', 'results.json'), 'utf8'),
    ) as {
      processingLatency: {
        runs: {
          latencyMs: number;
          ddbCallsPerPayment: Record<string, number>;
          writesPerPayment: Record<string, number>;
        }[];
      };
    };
    const run = results.processingLatency.runs.find((r) => r.latencyMs > 0)!;
    run.ddbCallsPerPayment = { Query: 1, Get: 1, Put: 3, TransactWrite: 2, Update: 1.5 };
    run.writesPerPayment = { ...run.writesPerPayment, 'write.RATE': 0.6, 'write.WHSEEN': 0.9 };
    const costs = paymentCosts(results as never);
    expect(costs.callsBefore + costs.callsAfter).toBeCloseTo(7);
    expect(costs.callsAfter).toBe(2);
  });

  it('refuses results without where the writes landed (measured before the census counted them)', () => {
    const results = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'bench', 'results.json'), 'utf8'),
    ) as { processingLatency: { runs: { latencyMs: number; writesPerPayment?: unknown }[] } };
    for (const run of results.processingLatency.runs) delete run.writesPerPayment;
    expect(() => paymentCosts(results as never)).toThrow(/no processingLatency run with writesPerPayment/);
  });
});

/**
 * Costs and settings small enough to follow by hand: no DynamoDB or Step Functions time, but
 * BeginGroup's count of the group's keys (one Query of 1 MB, 128 read units) takes what the
 * partition's 3,000 read units a second allow.
 */
const COUNT = 128 / 3000;
const noJitter = (intervalSeconds: number, maxAttempts: number): RetryPolicy => ({
  intervalSeconds,
  maxAttempts,
  backoffRate: 2,
  maxDelaySeconds: Infinity,
  fullJitter: false,
});
const tiny = (over: Partial<ModelInput>): ModelInput => {
  const costs: PaymentCosts = {
    callsBefore: 1,
    callsAfter: 1,
    cpuSeconds: 0,
    tableWriteUnits: 8,
    partitionWriteUnits: 2,
    merchantIndexWriteUnits: 0,
    indexLoads: [],
    historyEventsPerPayment: 0.05,
    emailsPerPayment: 1,
    sources: {},
  };
  const retries = { 'Lambda.TooManyRequestsException': noJitter(2, 5), 'States.ALL': noJitter(5, 5) };
  return {
    sizes: [32],
    latencySeconds: 1,
    processorRate: 1000,
    seed: 1,
    costs,
    region: { ddbCallSeconds: 0, taskOverheadSeconds: 0, sfnCallSeconds: 0 },
    service: {
      batchSize: 16,
      firstBatchSize: 16,
      processorRate: 1000,
      groupRate: 1000,
      merchantRate: 1000,
      batchRateWaitSeconds: 90,
      startRate: 1000,
      reserved: {},
      concurrency: 4,
      fanOut: 2,
      startConcurrency: 8,
      schedulerTimeoutSeconds: 300,
      dueSweepIntervalSeconds: 60,
      dueSweepTimeoutSeconds: 50,
      processorTimeoutSeconds: 3,
      authorizeBatchTimeoutSeconds: 150,
      retries: {
        BeginGroup: retries,
        AuthorizeBatch: {
          'Lambda.TooManyRequestsException': noJitter(5, 10),
          ProcessorUnavailable: noJitter(15, 9),
        },
        FailBatch: retries,
        CompleteGroup: retries,
      },
      emailSendRate: 14,
    },
    ...over,
  };
};

describe('runModel on a tiny slot', () => {
  it('one group of 32: 2 ranges of 16, 4 charges at a time each, 1 s a charge: answers at 1, 2, 3 and 4 s', () => {
    const r = runModel(tiny({}));
    expect(r.answered).toBe(32);
    expect(r.firstAnswer.max).toBeCloseTo(COUNT + 1);
    expect(r.lastAnswerSeconds).toBeCloseTo(COUNT + 4);
    // One task per range: the first range's first batch in AuthorizeFirstBatch, the second's in AuthorizeBatch.
    expect(r.peakConcurrency).toMatchObject({ AuthorizeFirstBatch: 1, AuthorizeBatch: 1 });
    expect(r.peakChargesPerSecond).toBe(8); // 2 ranges × 4 in flight, one round a second
    expect(r.peakPartitionWcu).toBe(16); // 8 answers a second × 2 units
    // 8 answers × 8 units, and the limiter's writes: a group window and a shard per chunk of 4.
    expect(r.peakTableWcu).toBeGreaterThanOrEqual(64);
    expect(r.lambdaThrottles.AuthorizeBatch).toBe(0);
    expect(r.givenUp).toBe(0);
  });

  it('an account of one execution: BeginGroup throttled behind the tick, the second range behind the first', () => {
    // t=0: the tick holds the only execution: BeginGroup is throttled, retried 2 s later. t=2:
    // BeginGroup (the times below after its count); both ranges' first batches ask, one runs (16 at once: answers at 3), the other
    // is throttled and retried 5 s later (t=7, the first range done at 3): answers at 8.
    const r = runModel(tiny({ limits: { account: 1 }, service: { ...tiny({}).service, concurrency: 16 } }));
    expect(r.lambdaThrottles).toMatchObject({ BeginGroup: 1, AuthorizeBatch: 1 });
    expect(r.firstAnswer.max).toBeCloseTo(3 + COUNT);
    expect(r.lastAnswerSeconds).toBeCloseTo(8 + COUNT);
    expect(r.answered).toBe(32);
  });

  it("a limiter above the processor's rate: a charge over it is refused, the batch fails after its other payments and retries 15 s later", () => {
    // 4 payments, one range, 4 at once; the processor takes 1 charge a second, the limiter lets 10.
    // From BeginGroup's end, t=0: 1 accepted (answered at 1), 3 refused; the batch fails at 1 and is
    // retried at 16: 1 accepted (17), 2 refused; retried at 17 + 30 = 47: 1 (48); at 48 + 60 = 108: the last (109).
    const r = runModel(tiny({ sizes: [4], processorRate: 1, limiterRate: 10 }));
    expect(r.processorRefused).toBe(3 + 2 + 1);
    expect(r.firstAnswer.max).toBeCloseTo(COUNT + 1);
    expect(r.lastAnswerSeconds).toBeCloseTo(COUNT + 109, 0);
    expect(r.givenUp).toBe(0);
  });

  it("the service's limiter: charges wait for the next second's window instead of being refused", () => {
    // 2 charges a second (1 shard of 2): 2 go in second 0, 2 in second 1 (after a wait spread over it).
    const r = runModel(tiny({ sizes: [4], processorRate: 2 }));
    expect(r.processorRefused).toBe(0);
    expect(r.chargesPaced).toBeGreaterThan(0);
    expect(r.peakChargesPerSecond).toBe(2);
    expect(r.firstAnswer.max).toBeCloseTo(COUNT + 1);
    expect(r.lastAnswerSeconds).toBeGreaterThan(2);
    expect(r.lastAnswerSeconds).toBeLessThan(3);
  });

  it("one merchant's groups share the merchant's rate: two groups of one merchant at 2 a second take twice as long as two merchants'", () => {
    const base = tiny({});
    const service = { ...base.service, merchantRate: 2 };
    const apart = runModel(tiny({ sizes: [8, 8], processorRate: 100, service }));
    const together = runModel(tiny({ sizes: [8, 8], processorRate: 100, service, merchantOf: () => 0 }));
    expect(apart.peakChargesPerSecond).toBe(4);
    expect(together.peakChargesPerSecond).toBe(2);
    expect(together.processorRefused).toBe(0);
    expect(together.answered).toBe(16);
    expect(together.lastAnswerSeconds).toBeGreaterThan(apart.lastAnswerSeconds + 3);
  });

  it('out of retries, FailBatch gives the batch up', () => {
    // As above with one retry: answers at 1 and 17, then FailBatch records the other 2 at 17.
    const base = tiny({});
    const retries = { ...base.service.retries, AuthorizeBatch: { ProcessorUnavailable: noJitter(15, 1) } };
    const r = runModel(
      tiny({ sizes: [4], processorRate: 1, limiterRate: 10, service: { ...base.service, retries } }),
    );
    expect(r.answered).toBe(4);
    expect(r.givenUp).toBe(2);
    expect(r.givenUpProcessor).toBe(2);
    expect(r.lastAnswerSeconds).toBeCloseTo(COUNT + 17);
    expect(r.peakConcurrency.FailBatch).toBe(1);
  });

  it('is the same run for the same seed', () => {
    const sizes = groupSizes(3, {
      payments: 20_000,
      groups: 60,
      large: { count: 1, size: 5_000 },
      medium: { count: 4, min: 1_000, max: 2_000 },
      small: { min: 20, max: 500 },
    });
    const input = tiny({ sizes, processorRate: 200, service: serviceSettings(), region: undefined });
    const a = runModel(input);
    expect(runModel(input)).toEqual(a);
    expect(a.answered).toBe(20_000);
  });
});

describe("the slot's events and their webhooks", () => {
  it('writes an event per answer and two per group (group.processing at its start, group.processed at its end), in time order', () => {
    const recorder = eventRecorder();
    const r = runModel(tiny({ sizes: [32, 8], onEvent: recorder.onEvent }));
    const { events } = recorder;
    expect(events.filter((e) => e.first)).toHaveLength(40);
    expect(events.filter((e) => !e.first)).toHaveLength(4);
    expect(new Set(events.map((e) => e.endpoint))).toEqual(new Set([0, 1]));
    const times = events.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBeCloseTo(r.lastAnswerSeconds);
  });

  it("delivers a tiny slot at prod's concurrency, within the account beside processing's reservations, and leaves processing as it was", () => {
    const input = tiny({ sizes: [32, 8] });
    const recorder = eventRecorder();
    const processing = runModel({ ...input, onEvent: recorder.onEvent });
    const d = slotDeliveries(input, processing, recorder.events);
    expect(d.deployed).toMatchObject({
      concurrency: 40,
      reserved: 44,
      unreserved: 1000 - 500 - 44,
      met: true,
    });
    expect(d.devDefault).toMatchObject({ concurrency: 10, reserved: 14, met: true });
    expect(d.deployed.result.events).toBe(44);
    expect(d.least?.concurrency).toBeLessThanOrEqual(10);
    expect(d.processing.withDeliveriesSeconds).toBe(processing.lastAnswerSeconds);
  });

  it("processing's writes wait behind others' on a full table", () => {
    const alone = runModel(tiny({ limits: { tableWcu: 100 } }));
    const beside = runModel(tiny({ limits: { tableWcu: 100 }, otherTableWrites: [[0, 1000]] }));
    expect(beside.lastAnswerSeconds).toBeGreaterThan(alone.lastAnswerSeconds);
    expect(beside.otherWritesThrottled).toBe(1);
    expect(alone.otherWritesThrottled).toBe(0);
  });
});

describe('the report', () => {
  it('says a slot that did not finish did not, also read back from results.json (NaN kept as null)', () => {
    const base = tiny({ sizes: [8, 8] });
    const result = runModel({ ...base, horizonSeconds: 0.01 });
    expect(result.answered).toBeLessThan(result.payments);
    const run: PeakRun = {
      name: 'what-if',
      latencySeconds: 1,
      processorRate: 1000,
      unlimited: true,
      result: JSON.parse(JSON.stringify(result)) as PeakRun['result'],
      bounds: [],
      tightest: { limit: 'x', seconds: 200, kind: 'physical', movedBy: 'y' },
    };
    expect(run.result.lastAnswerSeconds).toBeNull();
    const v = verdicts(run, { lastAnswerFactor: 1.25, firstAnswerSeconds: 180 });
    expect(v.lastOk).toBe(false);
    expect(v.last).toMatch(/^NOT met: the slot did not finish, 16 payments unanswered/);
    expect(v.last).not.toMatch(/-\d|0 s/);
  });
});
