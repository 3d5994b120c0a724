/**
 * The account's Lambda concurrency as the peak-slot model sees it: one pool shared by every
 * function that reserves none (the API's included), a function's own reservation where it has
 * one, and each function's scaling rate (LAMBDA_BURST_STEP more every LAMBDA_BURST_INTERVAL_SECONDS).
 * An invocation beyond either is throttled (Lambda.TooManyRequestsException), never queued.
 */
import { LAMBDA_BURST_INTERVAL_SECONDS, LAMBDA_BURST_STEP } from './quotas';

export const FUNCTIONS = [
  'ScheduleTick',
  'DueSweep',
  'BeginGroup',
  'AuthorizeFirstBatch',
  'AuthorizeBatch',
  'FailBatch',
  'CompleteGroup',
] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

const counts = (): Record<FunctionName, number> =>
  Object.fromEntries(FUNCTIONS.map((f) => [f, 0])) as Record<FunctionName, number>;

interface PoolLimits {
  /** The account's concurrency (LAMBDA_ACCOUNT_CONCURRENCY by default). */
  account: number;
  /** Reserved concurrency per function (none in today's CDK app). */
  reserved?: Partial<Record<FunctionName, number>>;
  /** Concurrency the API's functions hold throughout (from the unreserved pool). */
  api?: number;
}

export class LambdaPool {
  readonly inUse = counts();
  readonly peak = counts();
  readonly throttles = counts();
  readonly invocations = counts();
  /** Seconds of execution per function (billed duration, roughly). */
  readonly busySeconds = counts();
  private readonly firstUse: Partial<Record<FunctionName, number>> = {};
  private unreservedInUse = 0;
  private readonly unreservedLimit: number;
  /** The most the processing functions held at once, and the least left to the API meanwhile. */
  peakProcessing = 0;
  minApiHeadroom: number;

  constructor(private readonly limits: PoolLimits) {
    const reserved = Object.values(limits.reserved ?? {}).reduce((a, b) => a + (b ?? 0), 0);
    this.unreservedLimit = limits.account - reserved;
    this.minApiHeadroom = this.unreservedLimit - (limits.api ?? 0);
  }

  private scaleCap(fn: FunctionName, t: number): number {
    const first = (this.firstUse[fn] ??= t);
    return LAMBDA_BURST_STEP * (1 + Math.floor((t - first) / LAMBDA_BURST_INTERVAL_SECONDS));
  }

  /** Starts an invocation of `fn` at `t`, or counts a throttle and answers false. */
  tryStart(fn: FunctionName, t: number): boolean {
    const reserved = this.limits.reserved?.[fn];
    const fits =
      reserved !== undefined
        ? this.inUse[fn] < reserved
        : this.unreservedInUse + (this.limits.api ?? 0) < this.unreservedLimit;
    if (!fits || this.inUse[fn] >= this.scaleCap(fn, t)) {
      this.throttles[fn]++;
      return false;
    }
    this.inUse[fn]++;
    this.invocations[fn]++;
    if (reserved === undefined) this.unreservedInUse++;
    this.peak[fn] = Math.max(this.peak[fn], this.inUse[fn]);
    const processing = FUNCTIONS.reduce((n, f) => n + this.inUse[f], 0);
    this.peakProcessing = Math.max(this.peakProcessing, processing);
    this.minApiHeadroom = Math.min(
      this.minApiHeadroom,
      this.unreservedLimit - this.unreservedInUse - (this.limits.api ?? 0),
    );
    return true;
  }

  /** Ends an invocation of `fn` that ran `seconds`. */
  end(fn: FunctionName, seconds: number): void {
    this.inUse[fn]--;
    this.busySeconds[fn] += seconds;
    if (this.limits.reserved?.[fn] === undefined) this.unreservedInUse--;
  }
}
