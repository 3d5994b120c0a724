/**
 * A discrete-event model of one busy slot as the service runs it (issue 24): the hourly tick
 * claims and starts the due groups START_CONCURRENCY at a time (StartExecution against its token
 * bucket; a start throttled past the SDK's retries releases its claim, and the due sweep tries again
 * the next minute); each execution runs BeginGroup, then its key ranges at once (the Map, rangePlan),
 * each a loop of AuthorizeBatch tasks that charge up to PROCESS_BATCH_SIZE payments
 * PROCESS_CONCURRENCY at a time; a task the account's Lambda concurrency cannot take is throttled and
 * retried by the state machine's policy, and FailBatch gives up a batch whose retries run out.
 * Every charge first takes a token of the processor's rate as core/processor-rate.ts does (the
 * group's window, then a shard's, RATE_CHUNK at a time, the first batch in its own lane; a full
 * window waited out to the next second, spread over it; a batch past BATCH_RATE_WAIT_SECONDS given
 * back unfinished), then its DynamoDB calls before the processor, the processor (refusing a charge
 * over its rate in a second, which fails the batch with ProcessorUnavailable after its other
 * payments: the limiter should leave none), its writes after, the `authResponse` update on the
 * group's partition. The processing functions' reserved concurrency (PROCESSING_CONCURRENCY) and
 * the starters' pace (START_RATE) are the service's; `reserved`, `apiConcurrency`,
 * `startsPerSecond` and `fanOutOf` change them for a what-if.
 */
import { rangePlan } from '../../lambdas/domain/processing';
import { rateWindows } from '../../lambdas/core/processor-rate';
import { policyFor, ITEMS, REGION, type ModelInput, type TaskRetries } from './inputs';
import { LambdaPool, type FunctionName } from './lambda';
import { newWindow, rateTokensModel, takeWindow, type Window } from './limiter';
import { EventQueue, seededRandom } from './queue';
import {
  DDB_PARTITION_RCU,
  DDB_PARTITION_WCU,
  DDB_TABLE_MAX_WCU,
  LAMBDA_ACCOUNT_CONCURRENCY,
  PeakPerSecond,
  SDK_RETRY,
  SFN_START_EXECUTION,
  SFN_STATE_TRANSITIONS,
  TokenBucket,
} from './quotas';
import { groupStats, type GroupTimes, type ModelResult } from './stats';

export type { ModelInput } from './inputs';

/** Assumed: DynamoDB lets a tenth of a second's write units through at once, so no second passes the limit by much. */
const WRITE_BURST_SECONDS = 0.1;

type TaskError = 'Lambda.TooManyRequestsException' | 'ProcessorUnavailable';

export function runModel(input: ModelInput): ModelResult {
  const { sizes, costs, service: s } = input;
  const q = new EventQueue();
  const random = seededRandom(input.seed);
  const limits = input.limits ?? {};
  const pool = new LambdaPool({
    account: limits.account ?? LAMBDA_ACCOUNT_CONCURRENCY,
    reserved: input.reserved ?? s.reserved,
    api: input.apiConcurrency,
  });
  const starts = new TokenBucket(
    (limits.startExecution ?? SFN_START_EXECUTION).bucket,
    (limits.startExecution ?? SFN_START_EXECUTION).perSecond,
  );
  const transitions = new TokenBucket(
    (limits.transitions ?? SFN_STATE_TRANSITIONS).bucket,
    (limits.transitions ?? SFN_STATE_TRANSITIONS).perSecond,
  );
  // The acquirer takes its rate in each second and refuses the rest.
  const processor: Window = newWindow();
  const limiterRate = input.limiterRate ?? input.processorRate;
  const shards = Array.from({ length: rateWindows(limiterRate, 'first').shards }, newWindow);
  const groupWindows = new Map<number, Window>();
  if (input.latencySeconds >= s.processorTimeoutSeconds)
    throw new Error('every charge would outlast the adapter timeout (PROCESSOR_TIMEOUT_MS)');
  const tableWcu = limits.tableWcu ?? DDB_TABLE_MAX_WCU;
  const table = new TokenBucket(tableWcu * WRITE_BURST_SECONDS, tableWcu);
  const partitionWcu = limits.partitionWcu ?? DDB_PARTITION_WCU;
  const partitionRcu = DDB_PARTITION_RCU;
  const region = input.region ?? REGION;
  const call = region.ddbCallSeconds;
  const L = input.latencySeconds;

  const groups: GroupTimes[] = sizes.map((size) => ({
    size,
    answered: 0,
    givenUp: 0,
    first: NaN,
    last: NaN,
  }));
  const history = sizes.map(() => 0);
  const partitions = sizes.map(() => new TokenBucket(partitionWcu * WRITE_BURST_SECONDS, partitionWcu));
  const partitionPeaks = sizes.map(() => new PeakPerSecond());
  // A merchant's events partition (GSI1 EVENTS#<mid>) takes its groups' answers' events (the
  // workload names no merchants: each group is its own merchant's unless `merchantOf` says). The
  // table-wide indexes (the day index, the sweep index) take every group's, over their shards.
  const merchantOf = input.merchantOf ?? ((g: number) => g);
  const merchantIndexes = new Map<number, { bucket: TokenBucket; peak: PeakPerSecond }>();
  const merchantIndex = (g: number) => {
    const m = merchantOf(g);
    let index = merchantIndexes.get(m);
    if (!index) {
      index = {
        bucket: new TokenBucket(partitionWcu * WRITE_BURST_SECONDS, partitionWcu),
        peak: new PeakPerSecond(),
      };
      merchantIndexes.set(m, index);
    }
    return index;
  };
  const tableIndexes = costs.indexLoads
    .filter((l) => l.scope === 'table')
    .map((l) => ({
      load: l,
      bucket: new TokenBucket(partitionWcu * l.partitions * WRITE_BURST_SECONDS, partitionWcu * l.partitions),
      peak: new PeakPerSecond(),
    }));
  const tablePeak = new PeakPerSecond();
  const charges = new PeakPerSecond();
  const transitionsPeak = new PeakPerSecond();
  const counters = {
    startThrottles: 0,
    startsReleased: 0,
    transitions: 0,
    transitionsDelayed: 0,
    processorRefused: 0,
    chargesPaced: 0,
    limiterCalls: 0,
    batchesHeld: 0,
    partitionThrottled: 0,
    merchantIndexThrottled: 0,
    indexThrottled: 0,
    tableThrottled: 0,
    givenUpThrottled: 0,
    givenUpProcessor: 0,
    executionsFailed: 0,
    longestBatchSeconds: 0,
    peakPartitionRcu: 0,
    otherWritesThrottled: 0,
  };
  let startedGroups = 0;
  const pending = new Set(sizes.map((_, i) => i));

  const answer = (g: number, t: number, givenUp = false) => {
    const group = groups[g]!;
    group.answered++;
    if (givenUp) group.givenUp++;
    if (!(group.first <= t)) group.first = t;
    if (!(group.last >= t)) group.last = t;
    input.onEvent?.(g, t, 'payment');
  };

  /** Step Functions enters `n` states: answers the delay the transitions bucket imposes. */
  const enter = (n: number) => {
    counters.transitions += n;
    transitionsPeak.add(q.now, n);
    const wait = transitions.reserve(q.now, n);
    if (wait > 0) counters.transitionsDelayed += n;
    return wait;
  };

  /**
   * A Task state: its Lambda invocation (throttled or not), the body (which calls `finish` when
   * done, with an error if the task failed), the ASL's Retry on throttles and failures, then `next`
   * or, out of retries, `caught` with the last error.
   */
  const task = (
    fn: FunctionName,
    retries: TaskRetries,
    body: (finish: (error?: TaskError) => void) => void,
    next: () => void,
    caught: (error: TaskError) => void,
    g: number,
  ) => {
    const attempts: Record<string, number> = {};
    // History events: the state entered and exited (2), each attempt scheduled, started and ended (3).
    history[g]! += 2;
    const attempt = () => {
      history[g]! += 3;
      if (!pool.tryStart(fn, q.now)) return failed('Lambda.TooManyRequestsException');
      const began = q.now;
      body((error) => {
        pool.end(fn, q.now - began);
        if (error) failed(error);
        else next();
      });
    };
    const failed = (error: TaskError) => {
      const policy = policyFor(retries, error);
      const n = (attempts[error] = (attempts[error] ?? 0) + 1);
      if (!policy || n > policy.maxAttempts) return caught(error);
      const delay = Math.min(policy.maxDelaySeconds, policy.intervalSeconds * policy.backoffRate ** (n - 1));
      q.after((policy.fullJitter ? random() * delay : delay) + enter(1), attempt);
    };
    q.after(enter(1) + region.taskOverheadSeconds, attempt);
  };

  /** An execution failed (a task out of retries): its unanswered payments wait for the tick's re-drive, after the slot. */
  const failExecution = () => {
    counters.executionsFailed++;
  };

  const tokensFor = rateTokensModel({
    q,
    random,
    shards,
    groupWindows,
    merchantWindows: new Map(),
    merchantOf,
    limiterRate,
    groupRate: s.groupRate,
    merchantRate: s.merchantRate,
    callSeconds: call,
    tablePeak,
    counters,
  });

  /** One range of group `g` (range `r`): `count` payments, batch after batch. */
  const runRange = (g: number, r: number, count: number, done: () => void) => {
    let left = count;
    let progress = 0;
    const nextBatch = () => {
      if (left <= 0) return q.after(enter(1), done);
      // A group's first batch (the first range's, again while it was given back with nothing done).
      const first = r === 0 && progress === 0;
      history[g]! += 4; // NextBatch and MorePayments
      let unanswered = Math.min(first ? s.firstBatchSize : s.batchSize, left);
      left -= unanswered;
      task(
        first ? 'AuthorizeFirstBatch' : 'AuthorizeBatch',
        s.retries.AuthorizeBatch,
        (finish) => {
          const began = q.now;
          let refused = 0;
          let returned = 0;
          let working = Math.min(s.concurrency, unanswered);
          let todo = unanswered;
          const take = tokensFor(g, first ? 'first' : 'rest', unanswered, began + s.batchRateWaitSeconds);
          const worker = () => {
            if (todo === 0) {
              if (--working > 0) return;
              counters.longestBatchSeconds = Math.max(counters.longestBatchSeconds, q.now - began);
              if (refused === 0 && returned > 0) {
                // Given back unfinished: the rest of the batch goes back to the range.
                counters.batchesHeld++;
                left += returned;
                unanswered -= returned;
              }
              return finish(refused > 0 ? 'ProcessorUnavailable' : undefined);
            }
            todo--;
            take((ok) => {
              if (!ok) {
                returned++;
                return worker();
              }
              q.after(call * costs.callsBefore + costs.cpuSeconds, ask);
            });
          };
          const ask = () => {
            if (!takeWindow(processor, Math.floor(q.now), 1, input.processorRate)) {
              counters.processorRefused++;
              refused++;
              return worker();
            }
            charges.add(q.now, 1);
            q.after(L + call * (costs.callsAfter - 1), update);
          };
          const update = () => {
            const waitPartition = partitions[g]!.reserve(q.now, costs.partitionWriteUnits);
            const waitMerchant = merchantIndex(g).bucket.reserve(q.now, costs.merchantIndexWriteUnits);
            const waitIndex = Math.max(
              0,
              ...tableIndexes.map((i) => i.bucket.reserve(q.now, i.load.unitsPerPayment)),
            );
            const waitTable = table.reserve(q.now, costs.tableWriteUnits);
            if (waitPartition > 0) counters.partitionThrottled++;
            if (waitMerchant > 0) counters.merchantIndexThrottled++;
            if (waitIndex > 0) counters.indexThrottled++;
            if (waitTable > 0) counters.tableThrottled++;
            q.after(Math.max(waitPartition, waitMerchant, waitIndex, waitTable) + call, () => {
              // Counted as written, when the (retried) write went through.
              partitionPeaks[g]!.add(q.now, costs.partitionWriteUnits);
              merchantIndex(g).peak.add(q.now, costs.merchantIndexWriteUnits);
              for (const i of tableIndexes) i.peak.add(q.now, i.load.unitsPerPayment / i.load.partitions);
              tablePeak.add(q.now, costs.tableWriteUnits);
              answer(g, q.now);
              unanswered--;
              progress++;
              worker();
            });
          };
          q.after(call, () => {
            for (let i = working; i > 0; i--) worker();
          });
        },
        () => q.after(enter(1), nextBatch),
        (lastError) => {
          // FailBatch: each unanswered payment of the batch recorded Failed (two writes each).
          task(
            'FailBatch',
            s.retries.FailBatch,
            (finish) => {
              const n = unanswered;
              const seconds = Math.ceil(n / s.concurrency) * 2 * call;
              q.after(seconds, () => {
                for (let i = 0; i < n; i++) answer(g, q.now, true);
                progress += n;
                if (lastError === 'Lambda.TooManyRequestsException') counters.givenUpThrottled += n;
                else counters.givenUpProcessor += n;
                unanswered = 0;
                finish();
              });
            },
            () => q.after(enter(1), nextBatch),
            () => failExecution(),
            g,
          );
        },
        g,
      );
    };
    nextBatch();
  };

  /** Group `g`'s execution from its start: BeginGroup, its ranges at once, CompleteGroup. */
  const execute = (g: number) => {
    const size = sizes[g]!;
    const plan = rangePlan(size, s.batchSize, input.fanOutOf?.(size) ?? s.fanOut);
    task(
      'BeginGroup',
      s.retries.BeginGroup,
      (finish) => {
        // The count through the group's keys: Query after Query, each at most as fast as the
        // partition's read units allow.
        const queries = Math.ceil((size * ITEMS.countBytesPerPayment) / ITEMS.queryBytes);
        const units = queries * ITEMS.readUnitsPerQuery;
        const seconds = Math.max(call * (1 + queries + plan.ranges - 1), units / partitionRcu);
        counters.peakPartitionRcu = Math.max(counters.peakPartitionRcu, units / Math.max(1, seconds));
        q.after(seconds, () => finish());
      },
      () => {
        let open = plan.ranges;
        const rangeDone = () => {
          if (--open === 0)
            task(
              'CompleteGroup',
              s.retries.CompleteGroup,
              (finish) =>
                q.after(call * 3, () => {
                  input.onEvent?.(g, q.now, 'group'); // group.processed, with the summary
                  finish();
                }),
              () => undefined,
              () => failExecution(),
              g,
            );
        };
        q.after(enter(2), () => {
          for (let r = 0; r < plan.ranges; r++) {
            const count = r < plan.ranges - 1 ? plan.size : size - plan.size * (plan.ranges - 1);
            runRange(g, r, count, rangeDone);
          }
        });
      },
      () => failExecution(),
      g,
    );
  };

  /** A starter run (the tick or a due sweep): claims and starts pending groups until its timeout. */
  const starter = (fn: FunctionName, timeoutSeconds: number) => {
    if (pending.size === 0 || !pool.tryStart(fn, q.now)) return;
    const began = q.now;
    // This container's pace (core/processing.ts: one Pacer per container).
    const pacer = new TokenBucket(1, input.startsPerSecond ?? s.startRate, q.now);
    const list = [...pending].sort((a, b) => a - b);
    let i = 0;
    let working = Math.min(s.startConcurrency, list.length);
    const stop = () => {
      if (--working === 0) pool.end(fn, q.now - began);
    };
    const next = () => {
      while (i < list.length && !pending.has(list[i]!)) i++;
      if (i >= list.length || q.now - began >= timeoutSeconds) return stop();
      const g = list[i++]!;
      pending.delete(g);
      q.after(call, () => startExecution(g, 1));
    };
    const startExecution = (g: number, attempt: number, paced = false): void => {
      // The container's pace first (a slot reserved once, then waited for).
      if (!paced) return q.after(pacer.reserve(q.now), () => startExecution(g, attempt, true));
      if (starts.tryTake(q.now)) {
        startedGroups++;
        input.onEvent?.(g, q.now, 'group'); // group.processing, written with the claim
        q.after(region.sfnCallSeconds, () => {
          execute(g);
          q.after(call, next); // the ARN's record
        });
        return;
      }
      counters.startThrottles++;
      if (attempt < SDK_RETRY.maxAttempts) {
        const cap = Math.min(SDK_RETRY.maxBackoffSeconds, SDK_RETRY.throttleBaseSeconds * 2 ** (attempt - 1));
        return q.after(region.sfnCallSeconds + random() * cap, () => startExecution(g, attempt + 1, true));
      }
      counters.startsReleased++;
      q.after(call, () => {
        pending.add(g); // the claim released: the next due sweep tries again
        next();
      });
    };
    q.after(call * Math.ceil(sizes.length / 1000), () => {
      for (let k = working; k > 0; k--) next();
    });
  };

  for (const [at, units] of input.otherTableWrites ?? [])
    q.at(at, () => {
      if (table.reserve(q.now, units) > 0) counters.otherWritesThrottled++;
      tablePeak.add(q.now, units);
    });
  q.at(0, () => starter('ScheduleTick', s.schedulerTimeoutSeconds));
  const sweep = () => {
    starter('DueSweep', s.dueSweepTimeoutSeconds);
    if (startedGroups < sizes.length) q.after(s.dueSweepIntervalSeconds, sweep);
  };
  q.at(s.dueSweepIntervalSeconds, sweep);
  q.run(input.horizonSeconds ?? Infinity);

  return {
    ...groupStats(groups),
    events: q.processed,
    peakConcurrency: { ...pool.peak },
    peakProcessingConcurrency: pool.peakProcessing,
    minApiHeadroom: pool.minApiHeadroom,
    lambdaThrottles: { ...pool.throttles },
    lambdaInvocations: { ...pool.invocations },
    lambdaSeconds: { ...pool.busySeconds },
    peakChargesPerSecond: charges.max,
    peakTableWcu: tablePeak.max,
    peakTransitionsPerSecond: transitionsPeak.max,
    tableWriteUnits: tablePeak.total,
    peakPartitionWcu: Math.max(...partitionPeaks.map((p) => p.max)),
    peakMerchantIndexWcu: Math.max(0, ...[...merchantIndexes.values()].map((i) => i.peak.max)),
    peakIndexShardWcu: Object.fromEntries(tableIndexes.map((i) => [i.load.index, i.peak.max])),
    maxHistoryEvents: Math.max(...history),
    ...counters,
  };
}
