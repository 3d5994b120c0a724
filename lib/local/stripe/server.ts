/**
 * The local Stripe stand-in: an HTTP server that the official `stripe` package is pointed at
 * (its `host`, `port` and `protocol` options), answering the calls the Stripe adapter makes, as
 * Stripe does, plus a few test helpers under `/_stand-in/` (docs/testing.md "The Stripe
 * stand-in"). It checks the secret key, serves only its connected accounts (`Stripe-Account`),
 * keeps idempotency keys for 24 hours on its clock, fails on demand, and signs its webhooks.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseForm } from 'qs';
import { StandInError } from './errors';
import { Faults, type StandInFault } from './faults';
import { IdempotencyKeys, requestFingerprint } from './idempotency';
import {
  cancelPaymentIntent,
  createPaymentIntent,
  listEvents,
  listPaymentIntents,
  moveDispute,
  retrievePaymentIntent,
  settleDebits,
  updateCard,
} from './payments-api';
import { createRefund, failRefund, listRefunds, settleRefunds } from './refunds-api';
import { StandInState, type AccountState, type StateOptions } from './state';
import {
  attachPaymentMethod,
  createCustomer,
  createPaymentMethod,
  createSetupIntent,
  retrievePaymentMethod,
  searchCustomers,
  type Params,
} from './vault-api';
import { WebhookSender, type Delivery, type WebhookTarget } from './webhooks';

export interface StripeStandInOptions extends StateOptions {
  /** The secret key the adapter must present. */
  secretKey: string;
  /** The connected accounts (`acct_...`) it serves. */
  accounts: readonly string[];
  /** @default 0 (a free port) */
  port?: number;
  webhook?: WebhookTarget;
}

export interface StripeStandIn {
  readonly host: string;
  readonly port: number;
  readonly protocol: 'http';
  readonly state: StandInState;
  readonly faults: Faults;
  /** Every request received: method, path, account and idempotency key (never a body). */
  readonly requests: {
    method: string;
    path: string;
    account?: string;
    idempotencyKey?: string;
    replayed: boolean;
  }[];
  readonly deliveries: readonly Delivery[];
  /**
   * Settles the bank debits and the test cards' refund changes due by the clock and waits for the
   * webhooks on their way.
   */
  tick(): Promise<void>;
  /** Rolls the secret key as Stripe's Dashboard does with no grace: `key` only, from now on. */
  rollKey(key: string): void;
  close(): Promise<void>;
}

type Route = [
  method: string,
  path: RegExp,
  handler: (state: StandInState, account: AccountState, params: Params, id: string) => unknown,
];

const ROUTES: Route[] = [
  ['POST', /^\/v1\/customers$/, (s, a, p) => createCustomer(s, a, p)],
  ['GET', /^\/v1\/customers\/search$/, (_s, a, p) => searchCustomers(a, p)],
  ['POST', /^\/v1\/payment_methods$/, (s, a, p) => createPaymentMethod(s, a, p)],
  ['GET', /^\/v1\/payment_methods\/(pm_\w+)$/, (_s, a, _p, id) => retrievePaymentMethod(a, id)],
  ['POST', /^\/v1\/payment_methods\/(pm_\w+)\/attach$/, (_s, a, p, id) => attachPaymentMethod(a, id, p)],
  ['POST', /^\/v1\/setup_intents$/, (s, a, p) => createSetupIntent(s, a, p)],
  ['POST', /^\/v1\/payment_intents$/, (s, a, p) => createPaymentIntent(s, a, p)],
  ['GET', /^\/v1\/payment_intents$/, (_s, a, p) => listPaymentIntents(a, p)],
  ['GET', /^\/v1\/payment_intents\/(pi_\w+)$/, (_s, a, p, id) => retrievePaymentIntent(a, id, p)],
  ['POST', /^\/v1\/payment_intents\/(pi_\w+)\/cancel$/, (s, a, _p, id) => cancelPaymentIntent(s, a, id)],
  ['POST', /^\/v1\/refunds$/, (s, a, p) => createRefund(s, a, p)],
  ['GET', /^\/v1\/refunds$/, (_s, a, p) => listRefunds(a, p)],
  ['GET', /^\/v1\/events$/, (_s, a, p) => listEvents(a, p)],
];

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

export async function startStripeStandIn(options: StripeStandInOptions): Promise<StripeStandIn> {
  const state = new StandInState(options);
  for (const account of options.accounts) state.addAccount(account);
  const keys = new IdempotencyKeys(state.clock);
  const faults = new Faults();
  const requests: StripeStandIn['requests'] = [];
  const webhooks = options.webhook ? new WebhookSender(options.webhook, state.clock) : undefined;
  if (webhooks) state.onEvent((event) => webhooks.send(event));
  const hanging = new Set<ServerResponse>();
  let secretKey = options.secretKey;

  const send = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'request-id': `req_${randomBytes(8).toString('hex')}`,
      ...extra,
    });
    res.end(body);
  };
  const errorAnswer = (error: StandInError) => ({
    status: error.status,
    body: JSON.stringify({ error: error.body }),
  });

  /** Answers a spoiled `after` fault instead of `answer`. */
  function spoil(res: ServerResponse, fault: StandInFault, answer: { status: number; body: string }): void {
    if (!('after' in fault)) return send(res, answer.status, answer.body);
    if (fault.after === 'lost') return void res.socket?.destroy();
    if (fault.after === 'malformed-json') return send(res, 200, '{"object": "payment_intent", "id": ');
    if (fault.after === 'hang-mid-body') {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer.body),
      });
      res.write(answer.body.slice(0, Math.floor(answer.body.length / 2)));
      hanging.add(res);
      return;
    }
    const object = JSON.parse(answer.body) as Record<string, unknown>;
    for (const field of fault.unset ?? []) delete object[field];
    send(res, answer.status, JSON.stringify({ ...object, ...fault.set }));
  }

  async function helper(path: string, body: string, res: ServerResponse): Promise<void> {
    const input = (body === '' ? {} : JSON.parse(body)) as Record<string, unknown>;
    if (path === '/_stand-in/faults')
      faults.add(input.fault as StandInFault, (input.match as object) ?? {}, Number(input.times ?? 1));
    else if (path === '/_stand-in/tick') await standIn.tick();
    else if (path === '/_stand-in/card-updates') {
      const event = updateCard(
        state,
        state.account(String(input.account)),
        String(input.paymentMethod),
        input.change as never,
      );
      return send(res, 200, JSON.stringify(event));
    } else if (path === '/_stand-in/refund-failures') {
      const events = failRefund(
        state,
        state.account(String(input.account)),
        String(input.refund),
        ...(typeof input.reason === 'string' ? [input.reason] : []),
      );
      return send(res, 200, JSON.stringify(events));
    } else if (path === '/_stand-in/disputes') {
      const event = moveDispute(
        state,
        state.account(String(input.account)),
        String(input.dispute),
        input.status as never,
      );
      return send(res, 200, JSON.stringify(event));
    } else
      return send(
        res,
        404,
        JSON.stringify({ error: { type: 'invalid_request_error', message: `No test helper ${path}` } }),
      );
    send(res, 200, '{}');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const account = header(req, 'stripe-account');
    const idempotencyKey = header(req, 'idempotency-key');
    if (header(req, 'authorization') !== `Bearer ${secretKey}`) {
      const given = (header(req, 'authorization') ?? '').replace(/^Bearer /, '');
      return send(
        res,
        401,
        JSON.stringify({
          error: {
            type: 'invalid_request_error',
            message: `Invalid API Key provided: ${given.slice(0, 8)}****${given.slice(-4)}`,
          },
        }),
      );
    }
    if (path.startsWith('/_stand-in/')) return helper(path, body, res);
    const entry = {
      method,
      path,
      ...(account && { account }),
      ...(idempotencyKey && { idempotencyKey }),
      replayed: false,
    };
    requests.push(entry);
    settleDebits(state);
    settleRefunds(state);
    const fault = faults.take(method, path);
    const params = (method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(body)) as Params;
    const request = requestFingerprint(method, path, params);
    const scope = account ?? 'platform';
    if (fault && 'before' in fault) {
      const shouldRetry = 'shouldRetry' in fault ? fault.shouldRetry : undefined;
      const retry: Record<string, string> =
        shouldRetry === undefined ? {} : { 'stripe-should-retry': String(shouldRetry) };
      if (fault.before === 'rate-limit')
        return send(
          res,
          429,
          JSON.stringify({
            error: {
              type: 'invalid_request_error',
              code: 'rate_limit',
              message: 'Too many requests hit the API too quickly.',
            },
          }),
          retry,
        );
      if (fault.before === 'error') return send(res, fault.status, JSON.stringify({ error: fault.error }));
      const answer = {
        status: fault.status ?? 500,
        body: JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred.' } }),
      };
      if (fault.kept && idempotencyKey !== undefined && method === 'POST')
        keys.keep(scope, idempotencyKey, request, { ...answer, headers: retry });
      return send(res, answer.status, answer.body, retry);
    }
    if (method === 'POST' && idempotencyKey !== undefined) {
      const kept = keys.find(scope, idempotencyKey, request);
      if (kept === 'conflict')
        return send(
          res,
          400,
          JSON.stringify({
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          }),
        );
      if (kept) {
        entry.replayed = true;
        const answer = { status: kept.status, body: kept.body };
        return fault
          ? spoil(res, fault, answer)
          : send(res, kept.status, kept.body, { ...kept.headers, 'idempotent-replayed': 'true' });
      }
    }
    const route = ROUTES.find(([m, pattern]) => m === method && pattern.test(path));
    let answer: { status: number; body: string };
    let executed = true;
    try {
      if (!route)
        throw new StandInError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}).`,
        });
      const target = state.account(account);
      const id = route[1].exec(path)![1] ?? '';
      answer = { status: 200, body: JSON.stringify(route[2](state, target, params, id)) };
    } catch (error) {
      if (!(error instanceof StandInError)) throw error;
      answer = errorAnswer(error);
      executed = error.executed;
    }
    if (method === 'POST' && idempotencyKey !== undefined && executed)
      keys.keep(scope, idempotencyKey, request, answer);
    return fault ? spoil(res, fault, answer) : send(res, answer.status, answer.body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('stripe stand-in: request failed', error instanceof Error ? error.name : error);
      if (!res.headersSent)
        send(res, 500, JSON.stringify({ error: { type: 'api_error', message: 'The stand-in failed.' } }));
    });
  });
  await new Promise<void>((ok) => server.listen(options.port ?? 0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;

  const standIn: StripeStandIn = {
    host: '127.0.0.1',
    port,
    protocol: 'http',
    state,
    faults,
    requests,
    get deliveries() {
      return webhooks?.deliveries ?? [];
    },
    async tick() {
      settleDebits(state);
      settleRefunds(state);
      await webhooks?.settled();
    },
    rollKey(key) {
      secretKey = key;
    },
    async close() {
      for (const res of hanging) res.destroy();
      await webhooks?.settled();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  return standIn;
}
