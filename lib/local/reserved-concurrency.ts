/**
 * Lambda's reserved concurrency on the local runtime (issue 24, item 5): a function capped at N
 * runs at most N invocations at once, and an invocation over the cap is refused at once, before its
 * handler runs, with the error Lambda raises for it. A Step Functions Task sees it as
 * `Lambda.TooManyRequestsException`, so the state machine's Retry policies decide what follows, as
 * in the cloud; nothing is queued.
 *
 * The setting, `LOCAL_RESERVED_CONCURRENCY` (read when the runtime starts): comma-separated
 * entries, `N` for every processing function (the Task states of statemachines/process-group.asl.json)
 * and `Name=N` for one function by its Task state's name (`AuthorizeBatch=2`), which wins over `N`.
 * Unset or empty: no caps. Whatever the caps, every Task function's invocations, throttles and peak
 * concurrency are counted (`GET /__local/metrics`).
 */

/** The error a throttled invocation raises: its name is what a Retry's ErrorEquals matches. */
export class TooManyRequestsError extends Error {
  constructor(
    readonly functionName: string,
    readonly cap: number,
  ) {
    super(`Rate Exceeded. (function local-${functionName}: reserved concurrency ${cap} in use)`);
    // As a Task state sees it (an SDK caller of Invoke would see `TooManyRequestsException`; the
    // local runtime caps only the state machines' Task functions).
    this.name = 'Lambda.TooManyRequestsException';
  }
}

interface FunctionMetrics {
  /** The reserved concurrency, if capped. */
  cap?: number;
  /** Invocations that ran (throttled ones not counted). */
  invocations: number;
  throttles: number;
  running: number;
  peakConcurrency: number;
  /** Handler time of the invocations that ended, seconds. */
  busySeconds: number;
}

/** Parses LOCAL_RESERVED_CONCURRENCY; `known` are the function names an entry may name. */
export function parseReservedConcurrency(
  raw: string | undefined,
  processing: readonly string[],
  known: readonly string[] = processing,
): Record<string, number> {
  const caps: Record<string, number> = {};
  const named: Record<string, number> = {};
  const count = (text: string, entry: string): number => {
    if (!/^\d+$/.test(text.trim()))
      throw new Error(
        `LOCAL_RESERVED_CONCURRENCY: "${entry}" needs a whole number of invocations (0 or more)`,
      );
    return Number(text.trim());
  };
  for (const entry of (raw ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq < 0) {
      const n = count(entry, entry);
      for (const fn of processing) caps[fn] = n;
      continue;
    }
    const name = entry.slice(0, eq).trim();
    if (!known.includes(name))
      throw new Error(`LOCAL_RESERVED_CONCURRENCY: no function "${name}" (one of ${known.join(', ')})`);
    named[name] = count(entry.slice(eq + 1), entry);
  }
  return { ...caps, ...named };
}

/** The caps and counters of every function run through it. */
export class ConcurrencyLimiter {
  private readonly metrics = new Map<string, FunctionMetrics>();

  constructor(private readonly caps: Readonly<Record<string, number>> = {}) {}

  private of(name: string): FunctionMetrics {
    let m = this.metrics.get(name);
    if (!m) {
      m = { invocations: 0, throttles: 0, running: 0, peakConcurrency: 0, busySeconds: 0 };
      if (this.caps[name] !== undefined) m.cap = this.caps[name];
      this.metrics.set(name, m);
    }
    return m;
  }

  /** Runs `fn` as an invocation of `name`, or, with `name` at its cap, throws a TooManyRequestsError without running it. */
  async invoke<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const m = this.of(name);
    if (m.cap !== undefined && m.running >= m.cap) {
      m.throttles++;
      throw new TooManyRequestsError(name, m.cap);
    }
    m.running++;
    m.invocations++;
    m.peakConcurrency = Math.max(m.peakConcurrency, m.running);
    const started = performance.now();
    try {
      return await fn();
    } finally {
      m.running--;
      m.busySeconds += (performance.now() - started) / 1000;
    }
  }

  /** Every function's counters so far (`GET /__local/metrics`). */
  snapshot(): Record<string, FunctionMetrics> {
    return Object.fromEntries(
      [...this.metrics].map(([name, m]) => [
        name,
        { ...m, busySeconds: Math.round(m.busySeconds * 1000) / 1000 },
      ]),
    );
  }
}
