import { ApiError, NetworkError, errorFromResponse } from './errors';

/** Time as the client sees it: injectable so tests assert every wait and timeout without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Calls `fn` after `ms` unless the returned function cancels it first. */
  setTimer(ms: number, fn: () => void): () => void;
  /** In [0, 1): the jitter's source. */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  random: () => Math.random(),
};

/** The client guidance's retry policy (README "TypeScript client"). */
export const MAX_ATTEMPTS = 3;
export const BACKOFF_BASE_MS = 1_000;
export const JITTER_MS = 200;
/** Node's fetch (undici) gives up connecting after 10 s by default; this is the figure we rely on. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const READ_TIMEOUT_MS = 30_000;

/** 500 and 503 may be a passing fault; every other status (400, 404, other 4xx) answers the same again. */
const RETRIED_STATUSES = new Set([500, 503]);

export interface RawResponse {
  status: number;
  text: string;
}

export interface TransportOptions {
  clock: Clock;
  fetch: typeof fetch;
  readTimeoutMs: number;
}

/** The wait before attempt `attempt + 1`: 1 s, 2 s, 4 s... each ±200 ms, so clients do not retry in step. */
export function backoffMs(attempt: number, random: () => number): number {
  const base = BACKOFF_BASE_MS * 2 ** (attempt - 1);
  return Math.round(base + (random() * 2 - 1) * JITTER_MS);
}

/**
 * One HTTP exchange. The read timeout runs from sending until the headers, then restarts on every body
 * chunk: a server that stops sending for 30 s is a network error, however long the whole body takes.
 */
async function exchange(url: string, init: RequestInit, options: TransportOptions): Promise<RawResponse> {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error(`no data for ${options.readTimeoutMs} ms (read timeout)`));
  let cancel = options.clock.setTimer(options.readTimeoutMs, abort);
  try {
    const response = await options.fetch(url, { ...init, signal: controller.signal });
    cancel();
    cancel = options.clock.setTimer(options.readTimeoutMs, abort);
    const decoder = new TextDecoder();
    let text = '';
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        cancel();
        cancel = options.clock.setTimer(options.readTimeoutMs, abort);
        text += decoder.decode(chunk.value, { stream: true });
      }
      text += decoder.decode();
    }
    return { status: response.status, text };
  } catch (error) {
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    throw new NetworkError(`${init.method ?? 'GET'} ${url}: ${describe(reason)}`, 0, reason);
  } finally {
    cancel();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

/**
 * Sends `init` until it is answered with something other than 500 or 503, at most MAX_ATTEMPTS times.
 * `init` is reused as is, so a body's idempotencyKey is the same on every attempt and a retry is safe.
 * Returns the 2xx answer; throws ApiError (or NetworkError) with the number of attempts made.
 */
export async function sendWithRetry(
  url: string,
  init: RequestInit,
  options: TransportOptions,
): Promise<RawResponse> {
  for (let attempt = 1; ; attempt += 1) {
    let outcome: RawResponse | NetworkError;
    try {
      outcome = await exchange(url, init, options);
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      outcome = error;
    }
    const retriable = outcome instanceof NetworkError || RETRIED_STATUSES.has(outcome.status);
    if (retriable && attempt < MAX_ATTEMPTS) {
      await options.clock.sleep(backoffMs(attempt, options.clock.random));
      continue;
    }
    if (outcome instanceof NetworkError) throw new NetworkError(outcome.message, attempt, outcome.cause);
    if (outcome.status >= 200 && outcome.status < 300) return outcome;
    throw errorFromResponse(outcome.status, outcome.text, attempt);
  }
}

export { ApiError };
