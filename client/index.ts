/**
 * The Scheduled Payments API's TypeScript client (docs/integrating.md "TypeScript client"): the client guidance of
 * docs/product.md in one place. Tokens are fetched and cached; 500, 503 and network errors are retried
 * (at most 3 attempts, 1 s then 2 s ±200 ms apart); a 401 refreshes the token and retries once; sales,
 * refunds and group creates carry an idempotencyKey that stays the same across those retries.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ApiError } from './errors';
import {
  CONNECT_TIMEOUT_MS,
  READ_TIMEOUT_MS,
  sendWithRetry,
  systemClock,
  type Clock,
  type TransportOptions,
} from './transport';
import type { OperationId, Query, RequestBody, Result, TokenResponse } from './types';

export * from './errors';
export * from './types';
export { MAX_ATTEMPTS, READ_TIMEOUT_MS, CONNECT_TIMEOUT_MS, backoffMs, type Clock } from './transport';

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

type PaymentItem = Extract<Result<'ListPayments'>, unknown[]>[number];

type Params = Record<string, string | number | boolean | undefined>;

export class ScheduledPaymentsClient {
  private readonly transport: TransportOptions;
  private readonly newKey: () => string;
  private token: CachedToken | undefined;
  private pendingToken: Promise<CachedToken> | undefined;

  constructor(private readonly options: ClientOptions) {
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
  private async call<K extends OperationId>(
    method: string,
    template: string,
    path: Params,
    extra: { query?: Params; body?: unknown } = {},
  ): Promise<Result<K>> {
    // Appended to the base URL's path: a stage's ApiUrl ends with its stage (`.../dev/`), which
    // resolving an absolute path against it would drop.
    const url = new URL(
      this.options.baseUrl.replace(/\/+$/, '') +
        template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(path[name]))),
    );
    for (const [name, value] of Object.entries(extra.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const send = async () => {
      const headers: Record<string, string> = { authorization: `Bearer ${await this.getToken()}` };
      if (extra.body !== undefined) headers['content-type'] = 'application/json';
      const body = extra.body === undefined ? undefined : JSON.stringify(extra.body);
      return sendWithRetry(url.toString(), { method, headers, body }, this.transport);
    };
    let response;
    try {
      response = await send();
    } catch (error) {
      if (!(error instanceof ApiError) || error.responseCode !== 401) throw error;
      this.token = undefined;
      response = await send();
    }
    return (response.text ? JSON.parse(response.text) : undefined) as Result<K>;
  }

  /** The body with an idempotencyKey: the caller's, or a new UUID, made once so every retry repeats it. */
  private keyed<T extends { idempotencyKey?: string }>(body: T): T {
    return body.idempotencyKey ? body : { ...body, idempotencyKey: this.newKey() };
  }

  // Payors and their saved payment methods.
  createPayor(mid: string, body: RequestBody<'CreatePayor'>) {
    return this.call<'CreatePayor'>('POST', '/v1/rest/merchants/{MID}/payors', { MID: mid }, { body });
  }
  getPayor(mid: string, payorId: string) {
    return this.call<'GetPayor'>('GET', '/v1/rest/merchants/{MID}/payors/{PayorID}', {
      MID: mid,
      PayorID: payorId,
    });
  }
  searchPayors(mid: string, query: Query<'SearchPayors'>) {
    return this.call<'SearchPayors'>('GET', '/v1/rest/merchants/{MID}/payors', { MID: mid }, { query });
  }
  deletePayor(mid: string, payorId: string) {
    const path = { MID: mid, PayorID: payorId };
    return this.call<'DeletePayor'>('DELETE', '/v1/rest/merchants/{MID}/payors/{PayorID}', path);
  }
  listMethods(mid: string, payorId: string) {
    const path = { MID: mid, PayorID: payorId };
    return this.call<'ListMethods'>(
      'GET',
      '/v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods',
      path,
    );
  }
  addMethod(mid: string, payorId: string, body: RequestBody<'AddMethod'>) {
    const path = { MID: mid, PayorID: payorId };
    const template = '/v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods';
    return this.call<'AddMethod'>('POST', template, path, { body });
  }

  // Single transactions.
  createSale(mid: string, body: RequestBody<'CreateSale'>) {
    const template = '/v1/rest/merchants/{MID}/transactions';
    return this.call<'CreateSale'>('POST', template, { MID: mid }, { body: this.keyed(body) });
  }
  getTransaction(mid: string, transactionId: string) {
    const path = { MID: mid, TransactionID: transactionId };
    return this.call<'GetTransaction'>('GET', '/v1/rest/merchants/{MID}/transactions/{TransactionID}', path);
  }
  voidTransaction(mid: string, transactionId: string) {
    const path = { MID: mid, TransactionID: transactionId };
    return this.call<'VoidTransaction'>(
      'POST',
      '/v1/rest/merchants/{MID}/transactions/{TransactionID}/void',
      path,
    );
  }
  refundTransaction(mid: string, transactionId: string, body: RequestBody<'RefundTransaction'>) {
    const path = { MID: mid, TransactionID: transactionId };
    const template = '/v1/rest/merchants/{MID}/transactions/{TransactionID}/refunds';
    return this.call<'RefundTransaction'>('POST', template, path, { body: this.keyed(body) });
  }

  // Groups and their payments.
  createGroup(mid: string, body: RequestBody<'CreateGroup'>) {
    return this.call<'CreateGroup'>(
      'POST',
      '/rest/merchants/{MID}/groups',
      { MID: mid },
      { body: this.keyed(body) },
    );
  }
  // Series: recurring groups in the merchant's time zone.
  createSeries(mid: string, body: RequestBody<'CreateSeries'>) {
    return this.call<'CreateSeries'>(
      'POST',
      '/rest/merchants/{MID}/series',
      { MID: mid },
      { body: this.keyed(body) },
    );
  }
  listSeries(mid: string, query: Query<'ListSeries'> = {}) {
    return this.call<'ListSeries'>('GET', '/rest/merchants/{MID}/series', { MID: mid }, { query });
  }
  getSeries(mid: string, seriesId: string) {
    return this.call<'GetSeries'>('GET', '/rest/merchants/{MID}/series/{SeriesID}', {
      MID: mid,
      SeriesID: seriesId,
    });
  }
  updateSeries(mid: string, seriesId: string, body: RequestBody<'UpdateSeries'>) {
    const path = { MID: mid, SeriesID: seriesId };
    return this.call<'UpdateSeries'>('PUT', '/rest/merchants/{MID}/series/{SeriesID}', path, { body });
  }
  cancelSeries(mid: string, seriesId: string) {
    const path = { MID: mid, SeriesID: seriesId };
    return this.call<'DeleteSeries'>('DELETE', '/rest/merchants/{MID}/series/{SeriesID}', path);
  }
  listGroups(mid: string, query: Query<'ListGroups'> = {}) {
    return this.call<'ListGroups'>('GET', '/rest/merchants/{MID}/groups', { MID: mid }, { query });
  }
  getGroup(mid: string, groupId: string) {
    return this.call<'GetGroup'>('GET', '/rest/merchants/{MID}/groups/{GroupID}', {
      MID: mid,
      GroupID: groupId,
    });
  }
  deleteGroup(mid: string, groupId: string) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'DeleteGroup'>('DELETE', '/rest/merchants/{MID}/groups/{GroupID}', path);
  }
  listPayments(mid: string, groupId: string, query: Query<'ListPayments'> = {}) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'ListPayments'>('GET', '/rest/merchants/{MID}/groups/{GroupID}/payments', path, {
      query,
    });
  }
  /**
   * Every payment of a group, page by page with pageToken (each page costs the same however deep),
   * so a group of any size is read without holding it all at once.
   */
  async *allPayments(mid: string, groupId: string, pageSize?: number): AsyncGenerator<PaymentItem> {
    let pageToken: string | undefined;
    do {
      const query: Query<'ListPayments'> = pageToken ? { pageToken, pageSize } : { pageNumber: 1, pageSize };
      const page = await this.listPayments(mid, groupId, query);
      // With a paging parameter the answer is always the envelope; the array form is for unpaged calls.
      if (Array.isArray(page)) {
        yield* page;
        return;
      }
      yield* page.items;
      pageToken = page.meta.nextPageToken;
    } while (pageToken);
  }
  addPayment(mid: string, groupId: string, body: RequestBody<'AddPayment'>) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'AddPayment'>('POST', '/rest/merchants/{MID}/groups/{GroupID}/payments', path, { body });
  }
  getPayment(mid: string, groupId: string, paymentId: string) {
    const path = { MID: mid, GroupID: groupId, PaymentID: paymentId };
    const template = '/rest/merchants/{MID}/groups/{GroupID}/payments/{PaymentID}';
    return this.call<'GetPayment'>('GET', template, path);
  }
  processGroup(mid: string, groupId: string) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'ProcessGroup'>('POST', '/rest/merchants/{MID}/groups/{GroupID}/process-payments', path);
  }
  processMerchant(mid: string, body?: RequestBody<'ProcessMerchant'>) {
    const template = '/rest/merchants/{MID}/process-payments';
    return this.call<'ProcessMerchant'>('POST', template, { MID: mid }, { body });
  }
  /** The test clock (non-production, test MIDs): settles the merchant's approved sales now. */
  settleNow(mid: string) {
    return this.call<'SettleNow'>('POST', '/rest/merchants/{MID}/settle-now', { MID: mid });
  }
  voidOrRefundGroup(mid: string, groupId: string, body?: RequestBody<'VoidOrRefundGroup'>) {
    const path = { MID: mid, GroupID: groupId };
    const template = '/rest/merchants/{MID}/groups/{GroupID}/void-or-refund';
    return this.call<'VoidOrRefundGroup'>('POST', template, path, { body });
  }
}
