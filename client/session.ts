/**
 * The client's session with the API (client/index.ts builds the operations on it): its token,
 * fetched and cached; its transport; and one call, retried as client/index.ts describes, every
 * POST with one Idempotency-Key across its attempts.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ApiError, NetworkError } from './errors';
import {
  CONNECT_TIMEOUT_MS,
  READ_TIMEOUT_MS,
  sendWithRetry,
  systemClock,
  type RawResponse,
  type Clock,
  type TransportOptions,
} from './transport';
import type { OperationId, Result, TokenResponse } from './types';

export interface ClientOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` locally or a stage's `ApiUrl` output. */
  baseUrl: string;
  /** The OAuth 2.0 token endpoint (a stage's `TokenUrl` output; locally `<baseUrl>/oauth2/token`). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; the server's default when absent. */
  scope?: string;
  /** Refresh the token this long before it expires (default 60 s), so no call goes out with a stale one. */
  refreshMarginMs?: number;
  /** Connecting (TCP, and TLS for https) may take this long; 10 s by default. */
  connectTimeoutMs?: number;
  /** No byte for this long, before the headers or between body chunks, aborts the attempt; 30 s by default. */
  readTimeoutMs?: number;
  /** Injected for tests: the system clock otherwise. */
  clock?: Clock;
  /** Injected for tests: the connection to use instead of a new TCP (or TLS) one. */
  createConnection?: () => Duplex;
  /** Makes idempotency keys; crypto.randomUUID by default. */
  newKey?: () => string;
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

/** Per call: the Idempotency-Key of a POST (a new UUID when absent; the same on every retry). */
export interface CallOptions {
  idempotencyKey?: string;
}

type Params = Record<string, string | number | boolean | undefined>;

export class ApiSession {
  private readonly transport: TransportOptions;
  private readonly newKey: () => string;
  private token: CachedToken | undefined;
  private pendingToken: Promise<CachedToken> | undefined;

  constructor(protected readonly options: ClientOptions) {
    this.transport = {
      clock: options.clock ?? systemClock,
      connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      readTimeoutMs: options.readTimeoutMs ?? READ_TIMEOUT_MS,
      ...(options.createConnection && { createConnection: options.createConnection }),
    };
    this.newKey = options.newKey ?? randomUUID;
  }

  /** A valid access token: the cached one until `refreshMarginMs` before it expires, else a new one. */
  async getToken(): Promise<string> {
    const now = this.transport.clock.now();
    if (this.token && now < this.token.expiresAt - (this.options.refreshMarginMs ?? 60_000))
      return this.token.value;
    // Concurrent calls share one token request instead of each fetching their own.
    this.pendingToken ??= this.fetchToken().finally(() => (this.pendingToken = undefined));
    this.token = await this.pendingToken;
    return this.token.value;
  }

  private async fetchToken(): Promise<CachedToken> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.options.scope) form.set('scope', this.options.scope);
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    const response = await sendWithRetry(
      this.options.tokenUrl,
      {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
      this.transport,
    );
    const body = JSON.parse(response.text) as TokenResponse;
    return { value: body.access_token, expiresAt: this.transport.clock.now() + body.expires_in * 1000 };
  }

  /**
   * One API call: path parameters are filled in and encoded, the body is sent as JSON. A 401 means the
   * token was revoked or expired early: it is dropped, a new one fetched, and the call sent once more.
   */
  protected async call<K extends OperationId>(
    method: string,
    template: string,
    path: Params,
    extra: { query?: Params; body?: unknown; idempotencyKey?: string; anonymous?: true } = {},
  ): Promise<Result<K>> {
    const response = await this.exchange(method, template, path, extra);
    return (response.text ? JSON.parse(response.text) : undefined) as Result<K>;
  }

  /** One request, retried as the class describes; its raw answer. */
  protected async exchange(
    method: string,
    template: string,
    path: Params,
    /** `anonymous`: no token is fetched or sent (the health check). */
    extra: { query?: Params; body?: unknown; idempotencyKey?: string; accept?: string; anonymous?: true },
  ): Promise<RawResponse> {
    // Appended to the base URL's path: a stage's ApiUrl ends with its stage (`.../dev/`), which
    // resolving an absolute path against it would drop.
    const url = new URL(
      this.options.baseUrl.replace(/\/+$/, '') +
        template.replace(/\{(\w+)\}/g, (_, name: string) => pathSegment(name, String(path[name]))),
    );
    for (const [name, value] of Object.entries(extra.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    // Every POST carries a key, made once here: every attempt and the 401 retry send the same one.
    const key = method === 'POST' ? (extra.idempotencyKey ?? this.newKey()) : undefined;
    const send = async () => {
      const headers: Record<string, string> = extra.anonymous
        ? {}
        : { authorization: `Bearer ${await this.getToken().catch((error: unknown) => withKey(error, key))}` };
      if (extra.body !== undefined) headers['content-type'] = 'application/json';
      if (extra.accept !== undefined) headers.accept = extra.accept;
      if (key !== undefined) headers['idempotency-key'] = key;
      const body = extra.body === undefined ? undefined : JSON.stringify(extra.body);
      return sendWithRetry(url.toString(), { method, headers, body }, this.transport, key);
    };
    let response;
    try {
      response = await send();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      this.token = undefined;
      response = await send();
    }
    return response;
  }

  /**
   * A body that takes an idempotencyKey (sales, refunds, group and series creates) carries the call's key in
   * both places, the same: the caller's (option or body), else a new UUID made once for every attempt.
   */
  protected keyed<T extends { idempotencyKey?: string }>(body: T, options: CallOptions): [T, CallOptions] {
    const idempotencyKey = options.idempotencyKey ?? body.idempotencyKey ?? this.newKey();
    return [{ ...body, idempotencyKey }, { idempotencyKey }];
  }
}

/**
 * A path parameter as one segment, percent-encoded. An empty id, `.` or `..` (percent-encoded or
 * not, a URL resolves it as a dot segment) would name another resource, the parent: a payment's
 * DELETE would reach its group's, one group's trigger the merchant's. Refused before anything is
 * sent.
 */
function pathSegment(name: string, value: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new RangeError(`${name} must be an id, not ${JSON.stringify(value)}: nothing was sent`);
  return encodeURIComponent(value);
}

/**
 * The token renewal's failure, carrying the request's key: a keyed request that gives up there
 * (after an attempt that may have done its work) is sent again with that key, never a new one.
 */
function withKey(error: unknown, key: string | undefined): never {
  if (key === undefined || !(error instanceof ApiError) || error.idempotencyKey !== undefined) throw error;
  if (error instanceof NetworkError) throw new NetworkError(error.message, error.attempts, error.cause, key);
  throw new ApiError(
    error.message,
    error.status,
    error.errors,
    error.attempts,
    error.cause,
    key,
    error.responseCode,
    error.body,
  );
}
