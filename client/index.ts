/**
 * The Scheduled Payments API's TypeScript client (docs/integrating.md "TypeScript client"): the client guidance of
 * docs/product.md in one place. Tokens are fetched and cached. Every POST carries an Idempotency-Key
 * (the caller's or a new UUID) that stays the same across every retry, so no retry does anything twice:
 * 429, 500, 502, 503, 504 and network errors are retried (at most 3 attempts, 1 s then 2 s ±200 ms
 * apart, or a longer Retry-After); a 409 "still in progress" is waited out as its Retry-After says
 * (up to 45 s in all, past the 30 s lease of a request that crashed half-way); a 401 refreshes the
 * token and retries once. Every error carries the HTTP `status` and the POST's `idempotencyKey`.
 */
import { ApiSession, type CallOptions } from './session';
import type { Query, RequestBody, Result } from './types';

export * from './errors';
export * from './types';
export * from './webhooks';
export type { CallOptions, ClientOptions } from './session';
export {
  MAX_ATTEMPTS,
  READ_TIMEOUT_MS,
  CONNECT_TIMEOUT_MS,
  IN_PROGRESS_WAIT_MS,
  RETRIED_STATUSES,
  backoffMs,
  type Clock,
} from './transport';

type PaymentItem = Extract<Result<'ListPayments'>, unknown[]>[number];
type SeriesPaymentItem = NonNullable<Result<'GetSeries'>['payments']>[number];
type GroupItem = Extract<Result<'ListGroups'>, { items: unknown[] }>['items'][number];

/**
 * Narrows a list answer: the paged envelope `{meta, items}` (answered when a paging parameter is
 * sent) rather than the bare array of an unpaged call.
 */
export function isPage<T extends { items: unknown[] }>(answer: T | readonly unknown[]): answer is T {
  return !Array.isArray(answer);
}

const PAYORS = '/v1/rest/merchants/{MID}/payors';
const PAYOR = `${PAYORS}/{PayorID}`;
const METHODS = `${PAYOR}/savedPaymentMethods`;
const METHOD = `${METHODS}/{PaymentMethodID}`;
const SALES = '/v1/rest/merchants/{MID}/transactions';
const GROUPS = '/rest/merchants/{MID}/groups';
const GROUP = `${GROUPS}/{GroupID}`;
const PAYMENTS = `${GROUP}/payments`;
const PAYMENT = `${PAYMENTS}/{PaymentID}`;
const EVENTS = '/v1/rest/merchants/{MID}/events';
const RETURNS = '/v1/rest/merchants/{MID}/returns';
const DISPUTES = '/v1/rest/merchants/{MID}/disputes';
const ENDPOINTS = '/v1/rest/merchants/{MID}/webhook-endpoints';
const ENDPOINT = `${ENDPOINTS}/{WebhookEndpointID}`;

export class ScheduledPaymentsClient extends ApiSession {
  /** `GET /health`: `{status: "ok"}` while the API takes requests; no token is fetched or sent. */
  getHealth() {
    return this.call<'GetHealth'>('GET', '/health', {}, { anonymous: true });
  }

  // Payors and their saved payment methods.
  createPayor(mid: string, body: RequestBody<'CreatePayor'>, options: CallOptions = {}) {
    return this.call<'CreatePayor'>('POST', PAYORS, { MID: mid }, { body, ...options });
  }
  getPayor(mid: string, payorId: string) {
    return this.call<'GetPayor'>('GET', PAYOR, { MID: mid, PayorID: payorId });
  }
  updatePayor(mid: string, payorId: string, body: RequestBody<'UpdatePayor'>) {
    return this.call<'UpdatePayor'>('PUT', PAYOR, { MID: mid, PayorID: payorId }, { body });
  }
  searchPayors(mid: string, query: Query<'SearchPayors'>) {
    return this.call<'SearchPayors'>('GET', PAYORS, { MID: mid }, { query });
  }
  /**
   * Every payor with a card expiring before the month (`yyyy-MM`): each page in turn (at most 100
   * payors an answer, the next named by its `Link: <?expiringBefore=…&pageToken=…>; rel="next"`),
   * a payor listed on two pages (several expiring cards) once.
   */
  async expiringPayors(mid: string, expiringBefore: string): Promise<Result<'SearchPayors'>> {
    const payors = new Map<string, Result<'SearchPayors'>[number]>();
    let pageToken: string | undefined;
    do {
      const query = { expiringBefore, pageToken };
      const answer = await this.exchange('GET', PAYORS, { MID: mid }, { query });
      for (const payor of JSON.parse(answer.text) as Result<'SearchPayors'>)
        if (!payors.has(payor.payorId)) payors.set(payor.payorId, payor);
      const next = answer.link && /[?&]pageToken=([^&>]+)[^>]*>;\s*rel="next"/.exec(answer.link)?.[1];
      pageToken = next ? decodeURIComponent(next) : undefined;
    } while (pageToken !== undefined);
    return [...payors.values()];
  }
  /** Many payors at once by their customer account ids (a POST that only reads: no key needed). */
  bulkSearchPayors(mid: string, body: RequestBody<'BulkSearchPayors'>) {
    return this.call<'BulkSearchPayors'>('POST', `${PAYORS}/search`, { MID: mid }, { body });
  }
  deletePayor(mid: string, payorId: string) {
    return this.call<'DeletePayor'>('DELETE', PAYOR, { MID: mid, PayorID: payorId });
  }
  listMethods(mid: string, payorId: string) {
    return this.call<'ListMethods'>('GET', METHODS, { MID: mid, PayorID: payorId });
  }
  addMethod(mid: string, payorId: string, body: RequestBody<'AddMethod'>, options: CallOptions = {}) {
    return this.call<'AddMethod'>('POST', METHODS, { MID: mid, PayorID: payorId }, { body, ...options });
  }
  getMethod(mid: string, payorId: string, methodId: string) {
    const path = { MID: mid, PayorID: payorId, PaymentMethodID: methodId };
    return this.call<'GetMethod'>('GET', METHOD, path);
  }
  updateMethod(mid: string, payorId: string, methodId: string, body: RequestBody<'UpdateMethod'>) {
    const path = { MID: mid, PayorID: payorId, PaymentMethodID: methodId };
    return this.call<'UpdateMethod'>('PUT', METHOD, path, { body });
  }
  /** `query.replaceWith`: another method of the payor that the method's pending payments move to. */
  deleteMethod(mid: string, payorId: string, methodId: string, query: Query<'DeleteMethod'> = {}) {
    const path = { MID: mid, PayorID: payorId, PaymentMethodID: methodId };
    return this.call<'DeleteMethod'>('DELETE', METHOD, path, { query });
  }

  // Single transactions.
  createSale(mid: string, body: RequestBody<'CreateSale'>, options: CallOptions = {}) {
    const [keyed, key] = this.keyed(body, options);
    return this.call<'CreateSale'>('POST', SALES, { MID: mid }, { body: keyed, ...key });
  }
  getTransaction(mid: string, transactionId: string) {
    return this.call<'GetTransaction'>('GET', `${SALES}/{TransactionID}`, {
      MID: mid,
      TransactionID: transactionId,
    });
  }
  voidTransaction(mid: string, transactionId: string, options: CallOptions = {}) {
    const path = { MID: mid, TransactionID: transactionId };
    return this.call<'VoidTransaction'>('POST', `${SALES}/{TransactionID}/void`, path, options);
  }
  refundTransaction(
    mid: string,
    transactionId: string,
    body: RequestBody<'RefundTransaction'>,
    options: CallOptions = {},
  ) {
    const path = { MID: mid, TransactionID: transactionId };
    const [keyed, key] = this.keyed(body, options);
    return this.call<'RefundTransaction'>('POST', `${SALES}/{TransactionID}/refunds`, path, {
      body: keyed,
      ...key,
    });
  }
  /** The merchant's returned bank debits, newest first (a page). */
  listReturns(mid: string, query: Query<'ListReturns'> = {}) {
    return this.call<'ListReturns'>('GET', RETURNS, { MID: mid }, { query });
  }
  /** The merchant's card disputes, newest first (a page; `status` keeps one status). */
  listDisputes(mid: string, query: Query<'ListDisputes'> = {}) {
    return this.call<'ListDisputes'>('GET', DISPUTES, { MID: mid }, { query });
  }
  /** One card dispute as it is now. */
  getDispute(mid: string, disputeId: string) {
    return this.call<'GetDispute'>('GET', `${DISPUTES}/{DisputeID}`, { MID: mid, DisputeID: disputeId });
  }

  // Groups and their payments.
  /** The merchant's groups still pending (not yet processed), soonest first. */
  listPendingGroups(mid: string, query: Query<'ListPendingGroups'> = {}) {
    return this.call<'ListPendingGroups'>('GET', '/rest/merchants/{MID}', { MID: mid }, { query });
  }
  createGroup(mid: string, body: RequestBody<'CreateGroup'>, options: CallOptions = {}) {
    const [keyed, key] = this.keyed(body, options);
    return this.call<'CreateGroup'>('POST', GROUPS, { MID: mid }, { body: keyed, ...key });
  }
  // Series: recurring groups in the merchant's time zone.
  createSeries(mid: string, body: RequestBody<'CreateSeries'>, options: CallOptions = {}) {
    const [keyed, key] = this.keyed(body, options);
    return this.call<'CreateSeries'>(
      'POST',
      '/rest/merchants/{MID}/series',
      { MID: mid },
      { body: keyed, ...key },
    );
  }
  listSeries(mid: string, query: Query<'ListSeries'> = {}) {
    return this.call<'ListSeries'>('GET', '/rest/merchants/{MID}/series', { MID: mid }, { query });
  }
  /** A series with a page of its payments (`query`: paymentsFrom, paymentsPageSize). */
  getSeries(mid: string, seriesId: string, query: Query<'GetSeries'> = {}) {
    const path = { MID: mid, SeriesID: seriesId };
    return this.call<'GetSeries'>('GET', '/rest/merchants/{MID}/series/{SeriesID}', path, { query });
  }
  /** Every payment of a series, page by page (following `paymentsNext`). */
  async *allSeriesPayments(
    mid: string,
    seriesId: string,
    pageSize?: number,
  ): AsyncGenerator<SeriesPaymentItem> {
    let paymentsFrom: number | undefined = 0;
    while (paymentsFrom !== undefined) {
      const series = await this.getSeries(mid, seriesId, { paymentsFrom, paymentsPageSize: pageSize });
      yield* series.payments ?? [];
      paymentsFrom = series.paymentsNext;
    }
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
    return this.call<'ListGroups'>('GET', GROUPS, { MID: mid }, { query });
  }
  /** Every group of the merchant (filtered by `query`), page by page, narrowed to the items. */
  async *allGroups(
    mid: string,
    query: Omit<Query<'ListGroups'>, 'pageNumber'> = {},
  ): AsyncGenerator<GroupItem> {
    for (let pageNumber = 1; ; pageNumber += 1) {
      const page = await this.listGroups(mid, { ...query, pageNumber });
      // With pageNumber the answer is always the envelope; the array form is for unpaged calls.
      if (!isPage(page)) {
        yield* page as GroupItem[];
        return;
      }
      yield* page.items;
      if (pageNumber >= page.meta.totalPages) return;
    }
  }
  getGroup(mid: string, groupId: string) {
    return this.call<'GetGroup'>('GET', GROUP, { MID: mid, GroupID: groupId });
  }
  /** Reschedules a pending group (date, hour) or changes its other fields. */
  /** The group's counts and amounts (JSON). */
  groupReport(mid: string, groupId: string) {
    return this.call<'GroupReport'>('GET', `${GROUP}/report`, { MID: mid, GroupID: groupId });
  }
  /**
   * One page of the group's CSV report (a whole CSV file with its header row), and the cursor of
   * the next page when one follows (the answer's `Link: <?cursor=…>; rel="next"`).
   */
  async groupReportCsvPage(
    mid: string,
    groupId: string,
    cursor?: string,
  ): Promise<{ csv: string; next?: string }> {
    const path = { MID: mid, GroupID: groupId };
    const answer = await this.exchange('GET', `${GROUP}/report`, path, {
      query: { cursor },
      accept: 'text/csv',
    });
    const next =
      answer.link === undefined ? undefined : /<\?cursor=([^>]+)>;\s*rel="next"/.exec(answer.link)?.[1];
    return { csv: answer.text, ...(next !== undefined && { next: decodeURIComponent(next) }) };
  }
  /** The group's whole CSV report: every page in turn, the header row once. */
  async groupReportCsv(mid: string, groupId: string): Promise<string> {
    const parts: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.groupReportCsvPage(mid, groupId, cursor);
      // The header row has no quoted line breaks: a later page's rows start after its first CRLF.
      parts.push(parts.length === 0 ? page.csv : page.csv.slice(page.csv.indexOf('\r\n') + 2));
      cursor = page.next;
    } while (cursor !== undefined);
    return parts.join('');
  }
  updateGroup(mid: string, groupId: string, body: RequestBody<'UpdateGroup'>) {
    return this.call<'UpdateGroup'>('PUT', GROUP, { MID: mid, GroupID: groupId }, { body });
  }
  deleteGroup(mid: string, groupId: string) {
    return this.call<'DeleteGroup'>('DELETE', GROUP, { MID: mid, GroupID: groupId });
  }
  listPayments(mid: string, groupId: string, query: Query<'ListPayments'> = {}) {
    return this.call<'ListPayments'>('GET', PAYMENTS, { MID: mid, GroupID: groupId }, { query });
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
      if (!isPage(page)) {
        yield* page;
        return;
      }
      yield* page.items;
      pageToken = page.meta.nextPageToken;
    } while (pageToken);
  }
  addPayment(mid: string, groupId: string, body: RequestBody<'AddPayment'>, options: CallOptions = {}) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'AddPayment'>('POST', PAYMENTS, path, { body, ...options });
  }
  getPayment(mid: string, groupId: string, paymentId: string) {
    const path = { MID: mid, GroupID: groupId, PaymentID: paymentId };
    return this.call<'GetPayment'>('GET', PAYMENT, path);
  }
  updatePayment(mid: string, groupId: string, paymentId: string, body: RequestBody<'UpdatePayment'>) {
    const path = { MID: mid, GroupID: groupId, PaymentID: paymentId };
    return this.call<'UpdatePayment'>('PUT', PAYMENT, path, { body });
  }
  deletePayment(mid: string, groupId: string, paymentId: string) {
    const path = { MID: mid, GroupID: groupId, PaymentID: paymentId };
    return this.call<'DeletePayment'>('DELETE', PAYMENT, path);
  }
  processGroup(mid: string, groupId: string, options: CallOptions = {}) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'ProcessGroup'>('POST', `${GROUP}/process-payments`, path, options);
  }
  processMerchant(mid: string, body?: RequestBody<'ProcessMerchant'>, options: CallOptions = {}) {
    const template = '/rest/merchants/{MID}/process-payments';
    return this.call<'ProcessMerchant'>('POST', template, { MID: mid }, { body, ...options });
  }
  /** The test clock (non-production, test MIDs): settles the merchant's approved sales now. */
  settleNow(mid: string, options: CallOptions = {}) {
    return this.call<'SettleNow'>('POST', '/rest/merchants/{MID}/settle-now', { MID: mid }, options);
  }
  /**
   * Retry-now (non-production, test MIDs): runs every retry the merchant's groups have scheduled
   * at once, as their slots' hourly processing would.
   */
  retryMerchant(mid: string, options: CallOptions = {}) {
    return this.call<'RetryMerchant'>('POST', '/rest/merchants/{MID}/retry-payments', { MID: mid }, options);
  }
  /** The merchant's settings: the retry policy of its groups without one of their own. */
  getMerchantSettings(mid: string) {
    return this.call<'GetMerchantSettings'>('GET', '/rest/merchants/{MID}/settings', { MID: mid });
  }
  updateMerchantSettings(mid: string, body: RequestBody<'UpdateMerchantSettings'>) {
    const template = '/rest/merchants/{MID}/settings';
    return this.call<'UpdateMerchantSettings'>('PUT', template, { MID: mid }, { body });
  }
  /** The merchant's Nacha return rates of its bank debits (the last 60 UTC days). */
  getReturnRates(mid: string) {
    return this.call<'GetReturnRates'>('GET', '/rest/merchants/{MID}/return-rates', { MID: mid });
  }
  voidOrRefundGroup(
    mid: string,
    groupId: string,
    body?: RequestBody<'VoidOrRefundGroup'>,
    options: CallOptions = {},
  ) {
    const path = { MID: mid, GroupID: groupId };
    return this.call<'VoidOrRefundGroup'>('POST', `${GROUP}/void-or-refund`, path, { body, ...options });
  }

  // Events and webhook endpoints.
  listEvents(mid: string, query: Query<'ListEvents'> = {}) {
    return this.call<'ListEvents'>('GET', EVENTS, { MID: mid }, { query });
  }
  getEvent(mid: string, eventId: string) {
    return this.call<'GetEvent'>('GET', `${EVENTS}/{EventID}`, { MID: mid, EventID: eventId });
  }
  createWebhookEndpoint(mid: string, body: RequestBody<'CreateWebhookEndpoint'>, options: CallOptions = {}) {
    return this.call<'CreateWebhookEndpoint'>('POST', ENDPOINTS, { MID: mid }, { body, ...options });
  }
  listWebhookEndpoints(mid: string) {
    return this.call<'ListWebhookEndpoints'>('GET', ENDPOINTS, { MID: mid });
  }
  getWebhookEndpoint(mid: string, endpointId: string) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'GetWebhookEndpoint'>('GET', ENDPOINT, path);
  }
  updateWebhookEndpoint(mid: string, endpointId: string, body: RequestBody<'UpdateWebhookEndpoint'>) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'UpdateWebhookEndpoint'>('PUT', ENDPOINT, path, { body });
  }
  deleteWebhookEndpoint(mid: string, endpointId: string) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'DeleteWebhookEndpoint'>('DELETE', ENDPOINT, path);
  }
  /** A new signing secret; the old one keeps verifying for a while (see the operation's description). */
  rotateWebhookSecret(mid: string, endpointId: string, options: CallOptions = {}) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'RotateWebhookSecret'>('POST', `${ENDPOINT}/rotate-secret`, path, options);
  }
  listWebhookDeliveries(mid: string, endpointId: string, query: Query<'ListWebhookDeliveries'> = {}) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'ListWebhookDeliveries'>('GET', `${ENDPOINT}/deliveries`, path, { query });
  }
  replayWebhookEvents(
    mid: string,
    endpointId: string,
    body: RequestBody<'ReplayWebhookEvents'>,
    options: CallOptions = {},
  ) {
    const path = { MID: mid, WebhookEndpointID: endpointId };
    return this.call<'ReplayWebhookEvents'>('POST', `${ENDPOINT}/replay`, path, { body, ...options });
  }
}
