/**
 * Each route's handler CPU per request (issue 36 item 5): the bench's yardstick that does not move
 * with DynamoDB Local. For every route of the route table (contract/routes: derived, not listed
 * here), its documented request (contract/examples: the first request example and the query
 * example, the placeholders replaced by resources this section makes) is sent one at a time
 * (`--handler-requests`, after a warm-up), and the runtime's preloaded probe
 * (bench/support/handler-cpu-probe.ts) reads the process's CPU across each handler invocation. The
 * figure is the interquartile mean of a route's successful requests, in µs, checked against its budget
 * in bench/budgets.json (bench/support/budgets.ts): a route over its budget, without one, or not
 * measured is marked in the report (console and bench/results.md), as a missed ratio target is.
 *
 * On a merchant of its own (32350000002, the seeded `local-other` client's), so that its triggers
 * (process, retry, settle) and its webhook endpoint touch nothing of the other sections. A request
 * that would consume a resource (a delete, a void, processing a group) gets a fresh one first, not
 * measured; a POST taking `Idempotency-Key` gets a fresh key, as an integrator sends it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operationExamples, PLACEHOLDERS, type Placeholder } from '../../contract/examples/index';
import { routeList, type Route } from '../../contract/routes/index';
import { sleep } from '../../lambdas/shared/clock';
import {
  checkBudgets,
  failures,
  readBudgets,
  trimmedMean,
  type BudgetRow,
  type RouteCpu,
} from '../support/budgets';
import { getToken, type BenchContext } from '../support/context';
import { httpClient, type HttpClient, type HttpReply } from '../support/http';
import type { CustomSection, Results } from './section';

const MERCHANT = { mid: '32350000002', client: { id: 'local-other', secret: 'local-other-secret' } };
/** Unmeasured requests per route first: its handler's module loaded and its code warm. */
const WARMUP = 10;

type Ids = Record<Placeholder, string>;
type Json = Record<string, unknown>;

/** `value` with every placeholder replaced by its value in `ids`. */
function substitute<T>(value: T, ids: Ids): T {
  let text = JSON.stringify(value);
  if (text === undefined) return value;
  for (const [name, placeholder] of Object.entries(PLACEHOLDERS))
    text = text.split(placeholder).join(ids[name as Placeholder]);
  return JSON.parse(text) as T;
}

/** The route's documented request: its first request example's body and its query example. */
function documented(route: Route): { body?: unknown; query: Record<string, string> } {
  const examples = operationExamples[route.aliasOf ?? route.id];
  if (!examples) throw new Error(`${route.id}: no examples in contract/examples`);
  const first = examples.requests ? Object.values(examples.requests)[0] : undefined;
  return { ...(first && { body: first.value }), query: { ...examples.query } };
}

let cents = 0;
/**
 * A body that carries its own `idempotencyKey` (a sale, a refund): a fresh key each request, and an
 * amount a cent apart from the last (the sale's duplicate guard declines the same card and amount
 * again within its window: that would measure the decline).
 */
const freshKeys = (body: unknown): unknown => {
  if (typeof body !== 'object' || body === null || !('idempotencyKey' in body)) return body;
  const amount = (body as { amount?: unknown }).amount;
  return {
    ...body,
    idempotencyKey: `bench-${randomUUID()}`,
    ...(typeof amount === 'number' && { amount: (Math.round(amount * 100) + (++cents % 500)) / 100 }),
  };
};

/** A receiver for the section's webhook endpoint: 204 to every delivery. */
async function startReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

/** The section's resources, made through the API on first use (each a documented request too). */
function fixtures(api: HttpClient, receiverUrl: string) {
  const mid = MERCHANT.mid;
  const v1 = `/v1/rest/merchants/${mid}`;
  const base: Partial<Ids> = { MID: mid, WebhookURL: receiverUrl };
  const ids = () => base as Ids;
  const made = async <T = Json>(method: string, path: string, body: unknown, status: number) =>
    api.json<T>(method, path, body, status);
  /** The route's documented body, with this section's resources (`extra` over the shared ones). */
  const example = (id: string, extra: Partial<Ids> = {}) =>
    substitute(freshKeys(documented(routeById(id)).body), { ...fresh(), ...extra });
  /** The ids with the per-request ones fresh: a new customer account, a replay from a second ago. */
  const fresh = (): Ids => ({
    ...ids(),
    newCustomerAccountId: `bench-${randomUUID().slice(0, 8)}`,
    ReplaySince: new Date(Date.now() - 1000).toISOString(),
  });
  const newPayor = () =>
    made<{ payorId: string; defaultPaymentMethodId: string; customerAccountId: string }>(
      'POST',
      `${v1}/payors`,
      example('CreatePayor'),
      201,
    );
  const newGroup = () =>
    made<{ paymentGroupId: string; payments: { paymentId: string }[] }>(
      'POST',
      `/rest/merchants/${mid}/groups`,
      example('CreateGroup'),
      201,
    );
  const newSale = async () => {
    // Not within a second of its settlement cut-off: a void must find it unsettled.
    for (let i = 0; ; i++) {
      const sale = await made<{
        transactionId: string;
        settlementTime: string;
        status: string;
        responseCode: string;
        responseMessage: string;
      }>('POST', `${v1}/transactions`, example('CreateSale'), 201);
      if (sale.status !== 'Approved')
        throw new Error(`sale ${sale.status} ${sale.responseCode} ${sale.responseMessage}`);
      const left = Date.parse(sale.settlementTime) - Date.now();
      if (!(left < 1000)) return sale.transactionId;
      if (i === 3)
        throw new Error(`no sale a second before its cut-off: the last settles at ${sale.settlementTime}`);
      await sleep(Math.max(0, left) + 200);
    }
  };
  const newEndpoint = async () =>
    (
      await made<{ webhookEndpointId: string }>(
        'POST',
        `${v1}/webhook-endpoints`,
        example('CreateWebhookEndpoint'),
        201,
      )
    ).webhookEndpointId;
  const newSeries = async () =>
    (await made<{ seriesId: string }>('POST', `/rest/merchants/${mid}/series`, example('CreateSeries'), 201))
      .seriesId;
  const settled = async (transactionId: string) => {
    for (let i = 0; i < 60; i++) {
      await made('POST', `/rest/merchants/${mid}/settle-now`, undefined, 200);
      const sale = await made<{ settled: boolean }>(
        'GET',
        `${v1}/transactions/${transactionId}`,
        undefined,
        200,
      );
      if (sale.settled) return;
      await sleep(250);
    }
    throw new Error(`sale ${transactionId} never settled`);
  };

  let slots = 0;
  let slot: Json = {};
  let sink: Promise<string> | undefined;
  const sinkGroup = () => (sink ??= newGroup().then((g) => g.paymentGroupId));
  let shared: Promise<void> | undefined;
  let endpoint: Promise<string> | undefined;
  let dispute: Promise<string> | undefined;
  let refundable: Promise<string> | undefined;
  return {
    fresh,
    /** The payor, its method, a group with a payment, a sale, an event and a series. */
    async shared() {
      shared ??= (async () => {
        // Without an e-mail address: the examples' payments ask for notices, and the notifier's
        // e-mails (the local SES parses each) would run in the runtime beside the measured requests.
        const { email: _email, ...withoutEmail } = example('CreatePayor') as Json;
        const payor = await made<{
          payorId: string;
          defaultPaymentMethodId: string;
          customerAccountId: string;
        }>('POST', `${v1}/payors`, withoutEmail, 201);
        Object.assign(base, {
          PayorID: payor.payorId,
          PaymentMethodID: payor.defaultPaymentMethodId,
          customerAccountId: payor.customerAccountId,
        });
        const group = await newGroup();
        Object.assign(base, { GroupID: group.paymentGroupId, PaymentID: group.payments[0]!.paymentId });
        base.TransactionID = await newSale();
        const events = await made<{ items: { id: string }[] }>(
          'GET',
          `${v1}/events?objectId=${group.paymentGroupId}`,
          undefined,
          200,
        );
        base.EventID = events.items.at(-1)!.id;
        base.SeriesID = await newSeries();
      })();
      return shared;
    },
    /** The resources a route needs beyond the shared ones (made once), and those it consumes (each request). */
    prepare: {
      DeleteGroup: async () => ({ GroupID: (await newGroup()).paymentGroupId }),
      ProcessGroup: async () => ({ GroupID: (await newGroup()).paymentGroupId }),
      // As documented, the one pending group of the slot: a slot of its own each request (the
      // CreateGroup example's slot holds every group the section makes).
      ProcessMerchant: async () => {
        const day = new Date(Date.UTC(2030, 6, 1) + slots++ * 86_400_000).toISOString().slice(0, 10);
        const group = example('CreateGroup') as Json;
        await made('POST', `/rest/merchants/${mid}/groups`, { ...group, scheduleDate: day }, 201);
        slot = { scheduleDate: day, scheduleHour: group.scheduleHour };
        return {};
      },
      // Payments are added to a group of their own: the shared group keeps its one payment, so
      // that what reads it costs the same whatever ran before and however many requests did.
      AddPayment: async () => ({ GroupID: await sinkGroup() }),
      AddPaymentAlias: async () => ({ GroupID: await sinkGroup() }),
      DeletePayment: async () => ({ GroupID: await sinkGroup(), PaymentID: await newPayment() }),
      DeletePaymentAlias: async () => ({ GroupID: await sinkGroup(), PaymentID: await newPayment() }),
      DeletePayor: async () => ({ PayorID: (await newPayor()).payorId }),
      // A payor holds at most MAX_METHODS_PER_PAYOR methods: each added to a payor of its own.
      AddMethod: async () => ({ PayorID: (await newPayor()).payorId }),
      DeleteMethod: async () => {
        const payor = await newPayor();
        const method = await made<{ savedPaymentMethodId: string }>(
          'POST',
          `${v1}/payors/${payor.payorId}/savedPaymentMethods`,
          example('AddMethod'),
          201,
        );
        return { PayorID: payor.payorId, PaymentMethodID: method.savedPaymentMethodId };
      },
      VoidTransaction: async () => ({ TransactionID: await newSale() }),
      DeleteSeries: async () => ({ SeriesID: await newSeries() }),
      DeleteWebhookEndpoint: async () => ({ WebhookEndpointID: await newEndpoint() }),
      // One endpoint at the bench's receiver for the webhook routes, made when the first runs (they run last).
      ...Object.fromEntries(
        [
          'GetWebhookEndpoint',
          'UpdateWebhookEndpoint',
          'RotateWebhookSecret',
          'ListWebhookDeliveries',
          'ReplayWebhookEvents',
        ].map((id) => [id, async () => ({ WebhookEndpointID: await (endpoint ??= newEndpoint()) })]),
      ),
      // The sandbox's dispute card (product_not_received at the first cut-off after settlement):
      // the test clock settles it and the notices job applies the dispute.
      GetDispute: async () => ({
        DisputeID: await (dispute ??= (async () => {
          const payor = await made<{ payorId: string; defaultPaymentMethodId: string }>(
            'POST',
            `${v1}/payors`,
            substitute(
              {
                ...(example('CreatePayor') as Json),
                paymentMethod: {
                  ...((example('CreatePayor') as Json).paymentMethod as Json),
                  cardNumber: '4000000000002685',
                },
              },
              fresh(),
            ),
            201,
          );
          const sale = await made<{ transactionId: string }>(
            'POST',
            `${v1}/transactions`,
            {
              ...(example('CreateSale') as Json),
              profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`,
            },
            201,
          );
          await settled(sale.transactionId);
          for (let i = 0; i < 40; i++) {
            await api.send('POST', '/__local/events/notices');
            const { items } = await made<{ items: { disputeId: string }[] }>(
              'GET',
              `${v1}/disputes`,
              undefined,
              200,
            );
            if (items[0]) return items[0].disputeId;
            await made('POST', `/rest/merchants/${mid}/settle-now`, undefined, 200);
            await sleep(250);
          }
          throw new Error('the dispute card was not disputed');
        })()),
      }),
      // A settled sale large enough for every refund of the example's amount.
      RefundTransaction: async () => ({
        TransactionID: await (refundable ??= (async () => {
          const sale = await made<{ transactionId: string }>(
            'POST',
            `${v1}/transactions`,
            { ...(example('CreateSale') as Json), amount: 5000 },
            201,
          );
          await settled(sale.transactionId);
          return sale.transactionId;
        })()),
      }),
    } as Record<string, () => Promise<Partial<Ids>>>,
    /** The body of a route whose request names what its preparation made (not a placeholder). */
    bodies: {
      ProcessMerchant: (documented: unknown) => ({ ...(documented as Json), ...slot }),
    } as Record<string, (documented: unknown) => unknown>,
    /** After each request of a route that makes what would pile up (webhook endpoints: at most a few per merchant). */
    cleanUp: {
      CreateWebhookEndpoint: async (reply: HttpReply) => {
        const { webhookEndpointId } = JSON.parse(reply.text) as { webhookEndpointId: string };
        await made('DELETE', `${v1}/webhook-endpoints/${webhookEndpointId}`, undefined, 204);
      },
    } as Record<string, (reply: HttpReply) => Promise<void>>,
  };

  async function newPayment() {
    const reply = await made<{ paymentId: string }>(
      'POST',
      `/rest/merchants/${mid}/groups/${await sinkGroup()}/payments`,
      example('AddPayment', { GroupID: await sinkGroup() }),
      201,
    );
    return reply.paymentId;
  }
}

const routeById = (id: string): Route => {
  const route = routeList.find((r) => r.id === id);
  if (!route) throw new Error(`no route ${id}`);
  return route;
};

/**
 * The order routes are measured in: the table's, but those of the webhook endpoint last (once it
 * exists every event of the merchant is delivered to it, background work for the runtime) and the
 * processing of a group or a slot after them (each starts an execution that runs on in the background).
 */
const measureOrder = (routes: readonly Route[]): Route[] => {
  const starts = ['ProcessGroup', 'ProcessMerchant'];
  const rank = (r: Route) => (starts.includes(r.id) ? 2 : r.path.includes('/webhook-endpoints') ? 1 : 0);
  return [...routes].sort((a, b) => rank(a) - rank(b));
};

/** The success statuses of a route: its own, and 202 when it may answer that instead. */
const succeeded = (route: Route, status: number) =>
  status === route.status || (route.accepted !== undefined && status === 202);

/**
 * Until the runtime's event pipeline has handed on what the requests so far wrote (its stream
 * reader caught up after this call began, its notifier's queue empty): the work one route's
 * requests leave behind does not run beside the next route's.
 */
async function quiet(api: HttpClient): Promise<void> {
  const began = Date.now();
  while (Date.now() - began < 15_000) {
    const reply = await api.send('GET', '/__local/notifications');
    const state = JSON.parse(reply.text) as { streamCaughtUpAt: string | null; queued: unknown[] };
    if (
      state.queued.length === 0 &&
      state.streamCaughtUpAt !== null &&
      Date.parse(state.streamCaughtUpAt) > began
    )
      return;
    await sleep(50);
  }
}

interface HandlerCpuResult {
  measuredAt: string;
  requestsPerRoute: number;
  routes: Record<string, RouteCpu & { medianUs: number; firstError?: string }>;
}

async function measureRoute(
  ctx: BenchContext,
  api: HttpClient,
  fx: ReturnType<typeof fixtures>,
  route: Route,
  requests: number,
): Promise<RouteCpu & { medianUs: number; firstError?: string }> {
  const { body, query } = documented(route);
  const idempotent =
    route.method === 'POST' && route.idempotency !== undefined && route.idempotency !== 'none';
  const once = async () => {
    const ids = { ...fx.fresh(), ...(await fx.prepare[route.id]?.()) };
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name as Placeholder]);
    const search = new URLSearchParams(substitute(query, ids)).toString();
    const bodyOf = fx.bodies[route.id] ?? ((b: unknown) => b);
    const sent = substitute(freshKeys(bodyOf(body)), ids) as { idempotencyKey?: string } | undefined;
    // The header's key is the body's where the body names one (both must agree).
    const key = sent?.idempotencyKey ?? randomUUID();
    const reply = await api.send(
      route.method,
      search === '' ? path : `${path}?${search}`,
      sent,
      idempotent ? { 'idempotency-key': key } : {},
    );
    if (succeeded(route, reply.status)) await fx.cleanUp[route.id]?.(reply);
    return reply;
  };
  await quiet(api);
  for (let i = 0; i < WARMUP; i++) await once();
  const before = (await ctx.runtime.handlerCpu())[route.id]?.count ?? 0;
  const ok: boolean[] = [];
  let firstError: string | undefined;
  for (let i = 0; i < requests; i++) {
    const reply = await once();
    ok.push(succeeded(route, reply.status));
    if (!ok.at(-1)) firstError ??= `${reply.status} ${reply.text.slice(0, 200)}`;
  }
  const after = (await ctx.runtime.handlerCpu())[route.id];
  const invoked = (after?.count ?? 0) - before;
  // One invocation per request, in order: each sample is its request's, and a failed one is left out.
  const samples = invoked === requests ? after!.samplesUs.slice(-requests).filter((_, i) => ok[i]) : [];
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    us: Math.round(trimmedMean(samples)),
    medianUs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    requests: samples.length,
    errors: ok.filter((x) => !x).length,
    ...((firstError ?? invoked !== requests) && {
      firstError: firstError ?? `${invoked} handler invocations for ${requests} requests`,
    }),
  };
}

async function run(ctx: BenchContext): Promise<Results> {
  const requests = ctx.config.handlerRequests;
  const token = await getToken(ctx.runtime.url, MERCHANT.client);
  // One socket: one request at a time, nothing else of the section's in flight while a handler runs.
  const api = httpClient(ctx.runtime.url, { maxSockets: 1, token: () => token });
  const receiver = await startReceiver();
  const started = Date.now();
  try {
    const fx = fixtures(api, receiver.url);
    await fx.shared();
    const routes: HandlerCpuResult['routes'] = {};
    for (const route of measureOrder(routeList)) {
      const began = Date.now();
      try {
        routes[route.id] = await measureRoute(ctx, api, fx, route, requests);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        routes[route.id] = {
          us: NaN,
          medianUs: NaN,
          requests: 0,
          errors: requests,
          firstError: message.slice(0, 300),
        };
      }
      const m = routes[route.id]!;
      console.log(
        `  ${route.id}: ${cell(m.us)} µs (median ${cell(m.medianUs)}), ${((Date.now() - began) / 1000).toFixed(1)} s` +
          (m.firstError ? `; ${m.errors} failed: ${m.firstError}` : ''),
      );
    }
    console.log(
      `  handler-cpu: ${routeList.length} routes, ${WARMUP} + ${requests} requests each, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const result: HandlerCpuResult = {
      measuredAt: new Date().toISOString(),
      requestsPerRoute: requests,
      routes,
    };
    return { handlerCpu: result };
  } finally {
    api.close();
    receiver.server.close();
  }
}

const cell = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? '-' : n.toLocaleString('en-US');

function report(results: Results) {
  const r = results.handlerCpu as HandlerCpuResult | undefined;
  if (!r) return undefined;
  const rows: BudgetRow[] = checkBudgets(
    routeList.map((x) => x.id),
    r.routes,
    readBudgets().handlerCpuUs,
  );
  const failed = failures(rows);
  const at = (results.measured as Record<string, { commit?: string; loadAverage?: number[] }> | undefined)?.[
    'handler-cpu'
  ];
  const mark = (row: BudgetRow) => (row.verdict === 'within' ? 'within' : `**${row.verdict}**`);
  const markdown = [
    `Measured on ${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC${at ? ` at ${at.commit ?? 'unknown'}` : ''}` +
      `${at?.loadAverage ? ` (load average at its end ${at.loadAverage.join(' / ')}: the figures grow with the load)` : ''}. ` +
      'Per route of the route table, its documented ' +
      `request (contract/examples), ${WARMUP} unmeasured then ${r.requestsPerRoute} measured, one at a time; the ` +
      "runtime's CPU (user + system, all its threads) across each handler invocation, the local API gateway's own " +
      'work (token check, event) left out. Waiting for DynamoDB Local costs no CPU: the figure stays when DynamoDB ' +
      "Local's speed moves; the in-process local Step Functions' share of a route that starts an execution is in " +
      "it. µs per request: the interquartile mean (the middle half of the requests: one the runtime's background " +
      'work landed in moves it little) and the median; budgets in bench/budgets.json (docs/operating.md, "Benchmark").',
    '',
    failed.length === 0
      ? `Every route within its budget.`
      : `**${failed.length} route(s) fail the yardstick**: ${failed.map((f) => `${f.routeId} (${f.verdict})`).join(', ')}.`,
    '',
    '| route | handler CPU µs/req | median | budget µs | verdict | requests (errors) |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const m = r.routes[row.routeId];
      return (
        `| ${row.routeId} | ${cell(row.us)} | ${cell(m?.medianUs)} | ${cell(row.budgetUs)} | ${mark(row)} | ` +
        `${m?.requests ?? 0}${m?.errors ? ` (${m.errors}: ${(m.firstError ?? '').replace(/\|/g, '\\|').slice(0, 120)})` : ''} |`
      );
    }),
  ].join('\n');
  const console =
    failed.length === 0
      ? `handler CPU per request: all ${rows.length} routes within their budgets (bench/results.md lists them)`
      : `handler CPU per request: ${failed.length} of ${rows.length} routes FAIL the yardstick: ` +
        failed
          .map((f) => `${f.routeId} ${cell(f.us)} µs (${f.verdict}, budget ${cell(f.budgetUs)})`)
          .join('; ');
  return { console, markdown };
}

export const handlerCpu: CustomSection = {
  kind: 'custom',
  name: 'handler-cpu',
  title: "Each route's handler CPU per request",
  run,
  report,
};
