import { request as httpRequest, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
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

/** The client guidance's retry policy (docs/integrating.md "TypeScript client"). */
export const MAX_ATTEMPTS = 3;
export const BACKOFF_BASE_MS = 1_000;
export const JITTER_MS = 200;
/** No connection within 10 s (TCP, and TLS for https) is a network error, timed apart from the read. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const READ_TIMEOUT_MS = 30_000;

/** 500 and 503 may be a passing fault; every other status (400, 404, other 4xx) answers the same again. */
const RETRIED_STATUSES = new Set([500, 503]);

export interface RawResponse {
  status: number;
  text: string;
}

/** One request as the client sends it: the body is already serialised, so every retry repeats it. */
export interface OutgoingRequest {
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
      response.on('end', () =>
        finish(() =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
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
 * Sends `init` until it is answered with something other than 500 or 503, at most MAX_ATTEMPTS times.
 * `init` is reused as is, so a body's idempotencyKey is the same on every attempt and a retry is safe.
 * Returns the 2xx answer; throws ApiError (or NetworkError) with the number of attempts made.
 */
export async function sendWithRetry(
  url: string,
  init: OutgoingRequest,
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
