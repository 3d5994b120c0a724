/**
 * The crash test's API client: a client as docs/product.md "Client guidance" describes it, whose
 * server keeps dying. A request that never reached the server (connection refused: the runtime
 * is down) is sent again every half second; one that may have reached it (reset, timeout, 5xx,
 * 429, 409 "still in progress") is sent again unchanged, with the same idempotencyKey, after
 * waits of about 1, 2 and 4 s (±200 ms). The guidance stops after 3 attempts; this client keeps
 * going until its deadline, since a restart outlasts them, and reports `undefined` when it passes.
 */
import { sleep } from '#shared/clock';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  text: string;
}

const CRASH_CLIENT = { id: 'local-tester', secret: 'local-tester-secret' };
export const CRASH_MID = '32350000001';

const READ_TIMEOUT_MS = 30_000;
const REFUSED_RETRY_MS = 500;

/** Whether a fetch failure happened before anything was sent (the server was not listening). */
function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

const retryable = (reply: Reply): boolean =>
  reply.status >= 500 ||
  reply.status === 429 ||
  (reply.status === 409 && reply.text.includes('still in progress'));

export class CrashClient {
  private token: string | undefined;
  /** Requests sent again after a failure once sent (reset, timeout, 5xx): a kill hit them. */
  interrupted = 0;

  /** `url`: the runtime's address; `deadline`: no request is retried after this time (ms). */
  constructor(
    private readonly url: string,
    private readonly deadline: () => number,
  ) {}

  /** One attempt; throws when the connection fails. */
  private async once<T>(method: string, path: string, body: unknown, auth: boolean): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = `Bearer ${await this.bearer()}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: parsed as T, text };
  }

  /** A token (reused until a 401); the signing key is in the data directory, so it outlives restarts. */
  private async bearer(): Promise<string> {
    if (this.token) return this.token;
    const basic = Buffer.from(`${CRASH_CLIENT.id}:${CRASH_CLIENT.secret}`).toString('base64');
    const res = await fetch(`${this.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    });
    if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
    this.token = ((await res.json()) as { access_token: string }).access_token;
    return this.token;
  }

  /**
   * The request, retried as above until it has an answer that is not retryable (returned) or the
   * deadline passes (undefined: the outcome is unknown to this client).
   */
  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    options: { auth?: boolean } = {},
  ): Promise<Reply<T> | undefined> {
    let backoff = 1_000;
    let reauthorized = false;
    for (;;) {
      let wait: number;
      try {
        const reply = await this.once<T>(method, path, body, options.auth ?? true);
        // On 401 a new token, once (the guidance).
        const renew = reply.status === 401 && !reauthorized;
        if (renew) [this.token, reauthorized] = [undefined, true];
        if (!retryable(reply) && !renew) return reply;
        wait = renew ? 0 : backoff;
      } catch (error) {
        wait = refused(error) ? REFUSED_RETRY_MS : backoff;
      }
      if (wait === backoff) this.interrupted += 1;
      if (Date.now() + wait > this.deadline()) return undefined;
      if (wait >= backoff) backoff = Math.min(backoff * 2, 4_000);
      await sleep(wait === 0 ? 0 : wait + Math.round((Math.random() - 0.5) * 400));
    }
  }

  /** A local-only route (no token), tried once: the driver of ticks and sweeps skips a dead runtime. */
  async local(path: string, body: unknown): Promise<Reply | undefined> {
    try {
      return await this.once('POST', path, body, false);
    } catch {
      return undefined;
    }
  }
}
