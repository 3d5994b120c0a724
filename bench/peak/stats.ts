/** The peak-slot model's result and the per-group figures it reports (percentiles by nearest rank). */
import type { FunctionName } from './lambda';

export interface GroupTimes {
  size: number;
  answered: number;
  givenUp: number;
  /** Seconds from the slot's start to the group's first and last answer (NaN: none yet). */
  first: number;
  last: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of `values` (NaN where there are none). */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return { p50: at(50), p99: at(99), max: sorted[sorted.length - 1] ?? NaN };
}

export function groupStats(groups: readonly GroupTimes[]) {
  const payments = groups.reduce((n, g) => n + g.size, 0);
  const answered = groups.reduce((n, g) => n + g.answered, 0);
  const firsts = groups.map((g) => g.first).filter((t) => !Number.isNaN(t));
  const lasts = groups.filter((g) => g.answered === g.size).map((g) => g.last);
  return {
    groups: groups.length,
    payments,
    answered,
    givenUp: groups.reduce((n, g) => n + g.givenUp, 0),
    /** Groups with no answer at all, and with some payments unanswered, when the model stopped. */
    groupsUnstarted: groups.length - firsts.length,
    groupsUnfinished: groups.length - lasts.length,
    lastAnswerSeconds: answered === payments ? Math.max(...lasts) : NaN,
    firstAnswer: percentiles(firsts),
    lastAnswer: percentiles(lasts),
    /** The largest group's last answer. */
    largestGroupLastSeconds: Math.max(
      ...groups.filter((g) => g.size === Math.max(...groups.map((x) => x.size))).map((g) => g.last),
    ),
  };
}

export type ModelResult = ReturnType<typeof groupStats> & {
  events: number;
  peakConcurrency: Record<FunctionName, number>;
  peakProcessingConcurrency: number;
  minApiHeadroom: number;
  lambdaThrottles: Record<FunctionName, number>;
  lambdaInvocations: Record<FunctionName, number>;
  lambdaSeconds: Record<FunctionName, number>;
  peakChargesPerSecond: number;
  peakTableWcu: number;
  tableWriteUnits: number;
  peakPartitionWcu: number;
  /** Peak write units a second on a merchant's events partition (GSI1), and on one shard of each table-wide index. */
  peakMerchantIndexWcu: number;
  peakIndexShardWcu: Record<string, number>;
  peakPartitionRcu: number;
  startThrottles: number;
  startsReleased: number;
  transitions: number;
  transitionsDelayed: number;
  processorRefused: number;
  chargesPaced: number;
  limiterCalls: number;
  /** The most history events one execution wrote (the quota is 25,000). */
  maxHistoryEvents: number;
  batchesHeld: number;
  peakTransitionsPerSecond: number;
  partitionThrottled: number;
  merchantIndexThrottled: number;
  indexThrottled: number;
  tableThrottled: number;
  givenUpThrottled: number;
  givenUpProcessor: number;
  executionsFailed: number;
  longestBatchSeconds: number;
  /** Others' writes (otherTableWrites) that found the table's capacity taken. */
  otherWritesThrottled: number;
};
