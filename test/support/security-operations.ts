/**
 * Every operation of openapi.json as a request the security matrix (and the fuzz suite) can send:
 * the path filled with a merchant's real resources, and a body the operation accepts, so that a
 * refusal is the authorizer's or the merchant check's, not the body validator's.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { containsCardNumber } from '#shared/card-number';
import { call, futureDate } from '#support/api';
import { cardInput } from '#support/fixtures/inputs';

export interface Operation {
  operationId: string;
  method: string;
  /** e.g. `/rest/merchants/{MID}/groups/{GroupID}` */
  template: string;
  hasBody: boolean;
  /** Documented without security (`security: []`): it takes no token (the health check). */
  open: boolean;
}

const ROOT = join(__dirname, '..', '..');

export function operations(): Operation[] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
    paths: Record<
      string,
      Record<string, { operationId?: string; requestBody?: unknown; security?: unknown[] }>
    >;
  };
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([, op]) => typeof op === 'object' && op !== null && typeof op.operationId === 'string')
      .map(([method, op]) => ({
        operationId: op.operationId!,
        method: method.toUpperCase(),
        template,
        hasBody: op.requestBody !== undefined,
        open: Array.isArray(op.security) && op.security.length === 0,
      })),
  );
}

/** The ids a path or body may name. */
export interface Ids {
  MID: string;
  GroupID: string;
  PaymentID: string;
  PayorID: string;
  PaymentMethodID: string;
  TransactionID: string;
  WebhookEndpointID: string;
  SeriesID: string;
  /**
   * A dispute id: none is made (a dispute needs its charge settled and the processor's notice),
   * so it is one no merchant has; a foreign dispute's 404 is the integration tier's
   * (test/integration/disputes.test.ts).
   */
  DisputeID: string;
  /** The group's group.created event. */
  EventID: string;
  /** `payorId/methodId` of the merchant's own payor (payments and sales charge it). */
  profileId: string;
}

const ID_PARAMS = [
  'GroupID',
  'PaymentID',
  'PayorID',
  'PaymentMethodID',
  'TransactionID',
  'WebhookEndpointID',
  'EventID',
  'SeriesID',
  'DisputeID',
] as const;

/**
 * The webhook URL of the matrix's endpoints: loopback, which only the local runtime accepts; no
 * receiver listens there, so their deliveries are refused and retried (nothing depends on them).
 */
export const SINK_URL = 'http://127.0.0.1:9/scheduled-payments-hooks';

export const pathOf = (op: Operation, ids: Ids) =>
  op.template.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name as keyof Ids]);

export const idsIn = (op: Operation) => ID_PARAMS.filter((p) => op.template.includes(`{${p}}`));

/** A valid body for each operation that takes one (paths' ids repeated where the schema asks). */
export function bodyOf(op: Operation, ids: Ids): unknown {
  if (!op.hasBody) return undefined;
  const payment = { paymentGroupId: ids.GroupID, profileId: ids.profileId, amount: 1.25 };
  const bodies: Record<string, unknown> = {
    CreateGroup: { servicePayId: ids.MID, scheduleDate: futureDate(3), scheduleHour: 3, locationId: 1 },
    UpdateGroup: { paymentGroupId: ids.GroupID, scheduleHour: 4 },
    AddPayment: payment,
    AddPaymentAlias: payment,
    UpdatePayment: { ...payment, paymentId: ids.PaymentID },
    UpdatePaymentAlias: { ...payment, paymentId: ids.PaymentID },
    VoidOrRefundGroup: {},
    ProcessGroup: {},
    // A slot no file schedules: no body would process every pending group of the merchant on this
    // worker's runtime, earlier files' large ones too (CPU the other workers' timed tests share).
    ProcessMerchant: { scheduleDate: futureDate(12), scheduleHour: 23 },
    CreatePayor: { paymentMethod: cardInput() },
    BulkSearchPayors: { customerAccountIds: ['nobody'] },
    UpdatePayor: { email: 'payor@example.com' },
    AddMethod: cardInput(),
    UpdateMethod: { expiryMonth: 11 },
    CreateSale: { profileId: ids.profileId, amount: 1.5 },
    RefundTransaction: { amount: 0.5 },
    VoidTransaction: {},
    CreateWebhookEndpoint: { url: SINK_URL, enabledEvents: ['group.*'] },
    UpdateWebhookEndpoint: { description: 'matrix' },
    ReplayWebhookEvents: { since: new Date(Date.now() - 60_000).toISOString() },
    CreateSeries: seriesBody(ids.profileId),
    UpdateSeries: { seriesId: ids.SeriesID, noticeDays: 2 },
    // The default policy: the matrix changes nothing other tests see.
    UpdateMerchantSettings: { retryPolicy: { maxRetries: 0 } },
  };
  if (!(op.operationId in bodies)) throw new Error(`no body for ${op.operationId}: add one`);
  return bodies[op.operationId];
}

/** A series a month out (no group due at once): every 2 weeks at 9:00 in London, twice. */
const seriesBody = (profileId: string) => ({
  timeZone: 'Europe/London',
  localHour: 9,
  startDate: futureDate(30),
  frequency: 'weekly',
  interval: 2,
  count: 2,
  locationId: 1,
  payments: [{ profileId, amount: 1.25 }],
});

const created = async (method: string, path: string, body: unknown, token: string) => {
  const res = await call(method, path, body, { token });
  if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
};

/** One of each resource for `mid`, made through the API with `token`. */
export async function makeResources(mid: string, token: string): Promise<Ids> {
  const payor = await created(
    'POST',
    `/v1/rest/merchants/${mid}/payors`,
    { paymentMethod: cardInput() },
    token,
  );
  const PayorID = String(payor.payorId);
  const PaymentMethodID = String(payor.defaultPaymentMethodId);
  const profileId = `${PayorID}/${PaymentMethodID}`;
  const group = await created(
    'POST',
    `/rest/merchants/${mid}/groups`,
    { servicePayId: mid, scheduleDate: futureDate(2), scheduleHour: 5, locationId: 1 },
    token,
  );
  const GroupID = String(group.paymentGroupId);
  const payment = await created(
    'POST',
    `/rest/merchants/${mid}/groups/${GroupID}/payments`,
    { paymentGroupId: GroupID, profileId, amount: 2.5 },
    token,
  );
  const sale = await created(
    'POST',
    `/v1/rest/merchants/${mid}/transactions`,
    { profileId, amount: 3.5 },
    token,
  );
  const endpoint = await created(
    'POST',
    `/v1/rest/merchants/${mid}/webhook-endpoints`,
    { url: SINK_URL, enabledEvents: ['group.*'] },
    token,
  );
  const series = await created('POST', `/rest/merchants/${mid}/series`, seriesBody(profileId), token);
  return {
    MID: mid,
    SeriesID: String(series.seriesId),
    GroupID,
    PaymentID: String(payment.paymentId),
    PayorID,
    PaymentMethodID,
    TransactionID: String(sale.transactionId),
    WebhookEndpointID: String(endpoint.webhookEndpointId),
    EventID: await firstEventOf(mid, GroupID, token),
    DisputeID: randomUUID(),
    profileId,
  };
}

/** The id of an object's first event (its `*.created`). */
async function firstEventOf(mid: string, objectId: string, token: string): Promise<string> {
  const res = await call('GET', `/v1/rest/merchants/${mid}/events?objectId=${objectId}`, undefined, {
    token,
  });
  const items = (res.body as { items?: { id: string }[] }).items ?? [];
  if (res.status !== 200 || items.length === 0)
    throw new Error(`no event of ${objectId}: ${res.status} ${res.text}`);
  return items.at(-1)!.id;
}

/**
 * An id of the same shape as `id`: each letter or digit replaced by a random one of its kind,
 * except a UUID's version and variant characters and an event id's `evt_` prefix, so that it
 * passes the same validation. Never one that reads as a card number (an event id's run of digits
 * can): the service would mask it in its answer, which would then differ from the real id's.
 */
export function lookalike(id: string, random: () => number = Math.random): string {
  for (;;) {
    const drawn = redraw(id, random);
    if (!containsCardNumber(drawn)) return drawn;
  }
}

function redraw(id: string, random: () => number): string {
  const pick = (set: string) => set[Math.floor(random() * set.length)]!;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
  if (id.startsWith('evt_')) return `evt_${redraw(id.slice(4), random)}`;
  return id.replace(/[0-9a-zA-Z]/g, (c, at: number) => {
    if (uuid && (at === 14 || at === 19)) return c;
    if (/[0-9]/.test(c)) return pick('0123456789');
    if (/[a-f]/.test(c)) return pick(uuid ? '0123456789abcdef' : 'abcdef');
    if (/[A-F]/.test(c)) return pick('ABCDEF');
    return /[a-z]/.test(c) ? pick('abcdefghijklmnopqrstuvwxyz') : pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  });
}
