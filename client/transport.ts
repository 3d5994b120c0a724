import { request as httpRequest, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { NetworkError, errorFromResponse } from './errors';

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

/** The client guidance's retry policy (docs/integrating.md "TypeScript client"). */
export const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 1_000;
const JITTER_MS = 200;
/** No connection within 10 s (TCP, and TLS for https) is a network error, timed apart from the read. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const READ_TIMEOUT_MS = 30_000;

/**
 * 429, 500, 502, 503 and 504 may be a passing fault; every other status (400, 404, other 4xx) answers
 * the same again. Retrying them is safe because every POST carries an Idempotency-Key that stays the
 * same across attempts: a request that was done is answered from its record, never done twice.
 */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/**
 * A 409 with `Retry-After` is a request with this key still running (or one that crashed half-way,
 * whose 30 s lease must run out before a retry resumes it). The client waits as it is told and
 * tries again for this long in all, apart from the attempts above, so it never gives up on a
 * charge it may have made while the service is still finishing it.
 */
export const IN_PROGRESS_WAIT_MS = 45_000;
/** A Retry-After is honoured up to this long per wait (a longer one is cut to it). */
const MAX_RETRY_AFTER_MS = 30_000;

export interface RawResponse {
  status: number;
  text: string;
  /** The answer's `Retry-After`, in ms, when it has one in seconds. */
  retryAfterMs?: number;
  /** The answer's `Link` header (the next page of a CSV report), when it has one. */
  link?: string;
}

/** One request as the client sends it: the body is already serialised, so every retry repeats it. */
interface OutgoingRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface TransportOptions {
  clock: Clock;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  /** Injected for tests: the connection to use instead of a new TCP (or TLS) one. */
  createConnection?: () => Duplex;
}

/** The wait before attempt `attempt + 1`: 1 s, 2 s, 4 s... each ±200 ms, so clients do not retry in step. */
export function backoffMs(attempt: number, random: () => number): number {
  const base = BACKOFF_BASE_MS * 2 ** (attempt - 1);
  return Math.round(base + (random() * 2 - 1) * JITTER_MS);
}

/**
 * One HTTP exchange over node:http (node:https for https URLs). Two timers: connecting (a new socket
 * until it is connected) may take CONNECT_TIMEOUT_MS; then the read timeout runs until the headers
 * and restarts on every body chunk, so a server that stops sending for 30 s is a network error
 * however long the whole body takes. A kept-alive socket is connected already: only the read timer.
 */
function exchange(url: string, init: OutgoingRequest, options: TransportOptions): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const requestOptions: RequestOptions = { method: init.method, headers };
    if (options.createConnection) requestOptions.createConnection = options.createConnection;
    let timedOut: Error | undefined;
    let cancel = () => {};
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      cancel();
      outcome();
    };
    const fail = (error: unknown) =>
      finish(() => {
        const reason = timedOut ?? error;
        reject(new NetworkError(`${init.method} ${url}: ${describe(reason)}`, 0, reason));
      });
    const arm = (ms: number, what: string) => {
      cancel();
      cancel = options.clock.setTimer(ms, () => {
        timedOut = new Error(`no ${what} for ${ms} ms (${what} timeout)`);
        req.destroy(timedOut);
      });
    };
    const armRead = () => arm(options.readTimeoutMs, 'read');
    const req: ClientRequest = send(target, requestOptions, (response) => {
      armRead();
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        armRead();
      });
      response.on('error', fail);
      response.on('aborted', () => fail(new Error('the connection closed mid-response')));
      const retryAfter = Number(response.headers['retry-after']);
      response.on('end', () =>
        finish(() =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ...(typeof response.headers.link === 'string' && { link: response.headers.link }),
            ...(response.headers['retry-after'] !== undefined &&
              Number.isFinite(retryAfter) &&
              retryAfter >= 0 && { retryAfterMs: Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) }),
          }),
        ),
      );
    });
    req.on('socket', (socket: Duplex) => {
      if (!(socket as Partial<Socket>).connecting) return armRead();
      arm(options.connectTimeoutMs, 'connection');
      socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', armRead);
    });
    req.on('error', fail);
    req.end(init.body);
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

/**
 * Sends `init` until it is answered with something that is not worth another attempt: 429, 500, 502,
 * 503, 504 and network errors are tried MAX_ATTEMPTS times in all with backoff (a Retry-After, when
 * longer, is waited instead); a 409 with Retry-After (the key's first request still running) is
 * waited out for up to IN_PROGRESS_WAIT_MS besides. `init` is reused as is, so its Idempotency-Key
 * (and a body's idempotencyKey) is the same on every attempt and no retry does anything twice; a
 * DELETE whose retry is answered 404 did its work on an earlier attempt (answered as a 204).
 * Returns the 2xx answer; throws ApiError (or NetworkError) with the attempts made and the key.
 */
export async function sendWithRetry(
  url: string,
  init: OutgoingRequest,
  options: TransportOptions,
  idempotencyKey?: string,
): Promise<RawResponse> {
  const started = options.clock.now();
  let attempts = 0;
  // An attempt whose outcome is unknown: no answer, or a 5xx (the service may have done the work).
  let uncertain = false;
  for (let failures = 1; ;) {
    let outcome: RawResponse | NetworkError;
    attempts += 1;
    try {
      outcome = await exchange(url, init, options);
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      outcome = error;
    }
    if (!(outcome instanceof NetworkError) && outcome.status === 409 && outcome.retryAfterMs !== undefined) {
      const wait = Math.max(outcome.retryAfterMs, 500);
      if (options.clock.now() + wait - started <= IN_PROGRESS_WAIT_MS) {
        await options.clock.sleep(wait);
        continue;
      }
    }
    const retriable = outcome instanceof NetworkError || RETRIED_STATUSES.has(outcome.status);
    if (retriable && failures < MAX_ATTEMPTS) {
      uncertain ||= outcome instanceof NetworkError || outcome.status >= 500;
      const backoff = backoffMs(failures, options.clock.random);
      const told = outcome instanceof NetworkError ? undefined : outcome.retryAfterMs;
      await options.clock.sleep(Math.max(backoff, told ?? 0));
      failures += 1;
      continue;
    }
    if (outcome instanceof NetworkError)
      throw new NetworkError(outcome.message, attempts, outcome.cause, idempotencyKey);
    if (outcome.status >= 200 && outcome.status < 300) return outcome;
    // A DELETE retried after an attempt whose outcome is unknown (no answer, a 5xx: the service may
    // have deleted it) that now finds nothing: deleted, as asked. A 429 is API Gateway's throttle,
    // answered before the service ran: a 404 after it is the first answer.
    if (init.method === 'DELETE' && outcome.status === 404 && uncertain) return { status: 204, text: '' };
    throw errorFromResponse(outcome.status, outcome.text, attempts, idempotencyKey);
  }
}
