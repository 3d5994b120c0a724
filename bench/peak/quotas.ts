/**
 * AWS's published default quotas the peak-slot model runs against, each with the page that states
 * it, and the two meters the model keeps them with: a token bucket and a per-second peak.
 * Figures are the defaults of the large Regions (us-east-1, us-west-2, eu-west-1) where a page
 * gives two sets; an account can ask for more of each (Service Quotas).
 */

/**
 * Lambda: concurrent executions per account and Region, shared by every function (the API's
 * included) unless a function reserves some.
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const LAMBDA_ACCOUNT_CONCURRENCY = 1_000;

/**
 * Lambda scaling: each function scales up by 1,000 concurrent executions every 10 seconds (up to
 * the account's concurrency).
 * https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html
 */
export const LAMBDA_BURST_STEP = 1_000;
export const LAMBDA_BURST_INTERVAL_SECONDS = 10;

/**
 * Lambda keeps at least this much of an account's concurrency unreserved: a reservation that would
 * leave less fails.
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
 */
export const LAMBDA_MIN_UNRESERVED = 100;

/**
 * Lambda reads each shard of a DynamoDB stream 4 times a second, one batch at a time (a
 * ParallelizationFactor of 1, the default).
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
 */
export const STREAM_POLLS_PER_SECOND = 4;

/**
 * Lambda's event source on a standard SQS queue: five batches at once when messages come, then up
 * to 300 more invocations a minute, up to the source's maximum concurrency.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html
 */
export const SQS_SOURCE_SCALING = { initial: 5, perMinute: 300 } as const;

/**
 * Step Functions (Standard): StartExecution is a token bucket of 1,300 with a refill of 300 per
 * second (800 and 150 in the other Regions); state transitions one of 5,000 refilled at 5,000 per
 * second (800 and 800 elsewhere); 25,000 history events per execution.
 * https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html
 */
export const SFN_START_EXECUTION = { bucket: 1_300, perSecond: 300 } as const;
export const SFN_STATE_TRANSITIONS = { bucket: 5_000, perSecond: 5_000 } as const;
export const SFN_HISTORY_EVENTS_PER_EXECUTION = 25_000;

/**
 * DynamoDB: one partition serves at most 1,000 write units and 3,000 read units per second.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html
 */
export const DDB_PARTITION_WCU = 1_000;
export const DDB_PARTITION_RCU = 3_000;

/**
 * DynamoDB on-demand: a new table serves up to 4,000 write units (12,000 read units) per second at
 * once, then twice its previous peak; a table's throughput is capped at 40,000 write and read units
 * per second by default (a table can be pre-warmed up to its cap).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
 */
export const DDB_ON_DEMAND_NEW_TABLE_WCU = 4_000;
export const DDB_TABLE_MAX_WCU = 40_000;

/**
 * SES: out of the sandbox a new account's sending rate typically starts at 14 e-mails per second
 * (1 per second and 200 a day inside the sandbox).
 * https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas.html
 */
export const SES_SEND_RATE = 14;

/**
 * The AWS SDK's standard retry mode: 3 attempts, exponential backoff with full jitter from a base
 * of 500 ms for throttling errors, at most 20 s.
 * https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html
 */
export const SDK_RETRY = { maxAttempts: 3, throttleBaseSeconds: 0.5, maxBackoffSeconds: 20 } as const;

/** A token bucket (a quota's "bucket size" and "refill rate"), on the model's clock. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly capacity: number,
    readonly perSecond: number,
    start = 0,
  ) {
    this.tokens = capacity;
    this.last = start;
  }

  private refill(t: number): void {
    if (t > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (t - this.last) * this.perSecond);
      this.last = t;
    }
  }

  /** Tokens available at `t`. */
  available(t: number): number {
    this.refill(t);
    return this.tokens;
  }

  /** Takes `n` tokens at `t` if there are (the call goes through), else takes none (throttled). */
  tryTake(t: number, n = 1): boolean {
    this.refill(t);
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /**
   * Takes `n` tokens at `t` on credit and answers how long the caller waits until they are
   * covered (0 when they were there): callers queue in the order they reserve.
   */
  reserve(t: number, n = 1): number {
    this.refill(t);
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : -this.tokens / this.perSecond;
  }
}

/** The largest amount added within one whole second, for amounts added in time order. */
export class PeakPerSecond {
  private second = -1;
  private current = 0;
  max = 0;
  /** The second (from the slot's start) of the peak. */
  maxAt = 0;
  total = 0;

  add(t: number, amount: number): void {
    const s = Math.floor(t);
    if (s !== this.second) {
      this.second = s;
      this.current = 0;
    }
    this.current += amount;
    this.total += amount;
    if (this.current > this.max) {
      this.max = this.current;
      this.maxAt = s;
    }
  }
}
