/**
 * Contract tests (issue 12): every operation of openapi.json, sent its documented request examples
 * (bodies and query parameters) against the local runtime, answers its documented success status
 * with a body valid against the documented schema; and its invalid example request answers exactly
 * its documented 400 example (with `errors[]`), valid against the 400 schema. Examples name
 * resources by placeholder (contract/examples/types.ts); this test makes the resources, on a
 * merchant of its own so that the merchant-wide triggers touch nothing of the other tests.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { operationExamples, PLACEHOLDERS, type Placeholder } from '#contract/examples/index';
import { routeList } from '#contract/routes/index';
import { baseUrl, call, futureDate, type Reply } from '#support/api';
import {
  openApi,
  problemsOf,
  requestSchemaPointer,
  responseSchemaPointer,
  validatorAt,
} from '#support/openapi-schemas';
import { cardInput, checkingInput } from '#support/fixtures/index';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';
import { sleep } from '#shared/clock';
import { unsettledSale } from '#support/settlement-timing';
import { startReceiver, type Receiver } from '#support/webhook-receiver';
import { localToolCommand } from '#lib/local/runtime-bundle';

type Json = Record<string, unknown>;
type Ids = Record<Placeholder, string>;
interface Operation {
  id: string;
  method: string;
  path: string;
  op: Json;
}

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);
const admin = (...args: string[]) => {
  const [command, commandArgs] = localToolCommand('admin', [...args, '--local']);
  return run(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR! },
  });
};

/** The route whose examples an operation shows (an alias shows its target's). */
const exampleRoute = new Map(routeList.map((r) => [r.id, r.aliasOf ?? r.id]));

const operations: Operation[] = Object.entries(openApi.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ id: String(op.operationId), method, path, op: op as Json })),
);

/** `value` with every placeholder replaced by the real value of `ids`. */
function substitute<T>(value: T, ids: Ids): T {
  let text = JSON.stringify(value);
  if (text === undefined) return value;
  for (const [name, placeholder] of Object.entries(PLACEHOLDERS)) {
    text = text.split(placeholder).join(ids[name as Placeholder]);
  }
  return JSON.parse(text) as T;
}

/** The URL of an operation: the path with the real ids, and the query. */
function urlOf(operation: Operation, ids: Ids, query: Record<string, string> = {}): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name as Placeholder]);
  const search = new URLSearchParams(substitute(query, ids)).toString();
  return search === '' ? path : `${path}?${search}`;
}

/** The documented query parameter examples of an operation. */
const documentedQuery = (operation: Operation): Record<string, string> =>
  Object.fromEntries(
    ((operation.op.parameters ?? []) as Json[])
      .filter((p) => p.in === 'query' && p.example !== undefined)
      .map((p) => [String(p.name), String(p.example)]),
  );

/** The documented request examples of an operation: `[name, body]`, or one bodiless request. */
function documentedRequests(operation: Operation): [string, unknown][] {
  const body = operation.op.requestBody as { content: Record<string, Json> } | undefined;
  const examples = body?.content['application/json']?.examples as Record<string, Json> | undefined;
  if (!examples) return [['no body', undefined]];
  return Object.entries(examples).map(([name, example]) => [name, example.value]);
}

/** Fails with the body and ajv's problems unless `reply` has `status` and a body of its schema. */
function expectDocumented(operation: Operation, reply: Reply, status: string): void {
  if (String(reply.status) !== status) {
    throw new Error(`${operation.id}: expected ${status}, got ${reply.status} ${reply.text}`);
  }
  const pointer = responseSchemaPointer(operation.path, operation.method, status);
  if (pointer === undefined) {
    expect(reply.text).toBe('');
    return;
  }
  const validate = validatorAt(pointer);
  const valid = validate(reply.body);
  expect({ valid, problems: valid ? [] : problemsOf(validate), body: reply.body }).toMatchObject({
    valid: true,
  });
}

/** The operation's own success (a 202 beside it is the background answer of route.accepted). */
const successStatus = (operation: Operation): string => {
  const successes = Object.keys(operation.op.responses as Json).filter((s) => s.startsWith('2'));
  return successes.find((s) => s !== '202') ?? successes[0]!;
};

/** The documented success example's value of an operation. */
const documentedSuccess = (operation: Operation): unknown => {
  const ok = (operation.op.responses as Record<string, Json>)[successStatus(operation)] as {
    content: Record<string, { examples: Record<string, { value: unknown }> }>;
  };
  return ok.content['application/json']!.examples.success!.value;
};

test('only the health check is without an invalid example, and without security', () => {
  const without = operations.filter((o) => !operationExamples[exampleRoute.get(o.id) ?? o.id]?.invalid);
  expect(without.map((o) => o.id)).toEqual(['GetHealth']);
  const open = operations.filter((o) => Array.isArray(o.op.security) && (o.op.security as []).length === 0);
  expect(open.map((o) => o.id)).toEqual(['GetHealth']);
});

let ids: Ids;
/** The webhook endpoints' receiver: a real one on loopback (the examples' URL stands for it). */
let hooks: Receiver;
afterAll(async () => hooks?.close());
/**
 * Per operation, the resources it consumes (deletes, processes, voids) or waits for, made just
 * before it runs: a sale is voided before its settlement cut-off (8 s in the e2e runtime).
 */
const prepare: Record<string, () => Promise<Partial<Ids>>> = {};

async function made<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
  const reply = await call<T>(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.body;
}

beforeAll(async () => {
  const suffix = String(Date.now()).slice(-4);
  const mid = `3235008${suffix}`;
  await admin('register-merchant', '--mid', mid, '--mid8', `2358${suffix}`, '--name', 'Contract Examples');
  await admin('grant', '--client', 'local-tester', '--mid', mid);
  const customerAccountId = `cust-${randomUUID().slice(0, 8)}`;
  const payor = await createPayor({ customerAccountId }, mid);
  const profileId = `${payor.payorId}/${payor.defaultPaymentMethodId}`;
  const v1 = `/v1/rest/merchants/${mid}`;
  const groups = `/rest/merchants/${mid}/groups`;
  const newGroup = async () =>
    made<{ paymentGroupId: string; payments: { paymentId: string }[] }>(
      'POST',
      groups,
      groupBody({ servicePayId: mid, payments: [{ profileId, amount: 11 }] }),
    );
  const group = await newGroup();
  const addPayment = async () => ({
    PaymentID: (
      await made<{ paymentId: string }>('POST', `${groups}/${group.paymentGroupId}/payments`, {
        paymentGroupId: group.paymentGroupId,
        profileId,
        amount: 12,
      })
    ).paymentId,
  });
  const sale = async (amount: number) =>
    (await made<{ transactionId: string }>('POST', `${v1}/transactions`, { profileId, amount }))
      .transactionId;
  const newSeries = async () =>
    (
      await made<{ seriesId: string }>('POST', `/rest/merchants/${mid}/series`, {
        timeZone: 'America/New_York',
        localHour: 17,
        startDate: futureDate(40),
        frequency: 'monthly',
        interval: 1,
        count: 3,
        locationId: 3,
        payments: [{ profileId, amount: 13 }],
      })
    ).seriesId;
  hooks = await startReceiver();
  const newEndpoint = async () =>
    (
      await made<{ webhookEndpointId: string }>('POST', `${v1}/webhook-endpoints`, {
        url: hooks.url('/contract'),
      })
    ).webhookEndpointId;
  ids = {
    MID: mid,
    GroupID: group.paymentGroupId,
    PaymentID: group.payments[0]!.paymentId,
    PayorID: payor.payorId,
    PaymentMethodID: payor.defaultPaymentMethodId,
    TransactionID: await sale(30),
    // The group's first event: its group.created.
    EventID: (
      await made<{ items: { id: string }[] }>('GET', `${v1}/events?objectId=${group.paymentGroupId}`)
    ).items.at(-1)!.id,
    customerAccountId,
    newCustomerAccountId: `cust-${randomUUID().slice(0, 8)}`,
    WebhookEndpointID: await newEndpoint(),
    SeriesID: await newSeries(),
    // Made just before GetDispute runs (prepare): a dispute needs a settled sale and its notice.
    DisputeID: PLACEHOLDERS.DisputeID,
    WebhookURL: hooks.url('/contract'),
    ReplaySince: new Date(Date.now() - 60_000).toISOString(),
  };
  Object.assign(prepare, {
    DeleteGroup: async () => ({ GroupID: (await newGroup()).paymentGroupId }),
    ProcessGroup: async () => ({ GroupID: (await newGroup()).paymentGroupId }),
    DeletePayment: addPayment,
    DeletePaymentAlias: addPayment,
    DeletePayor: async () => ({ PayorID: (await createPayor({}, mid)).payorId }),
    DeleteMethod: async () => ({
      PaymentMethodID: (
        await made<{ savedPaymentMethodId: string }>(
          'POST',
          `${v1}/payors/${payor.payorId}/savedPaymentMethods`,
          checkingInput(),
        )
      ).savedPaymentMethodId,
    }),
    // Not within the void margin of its cut-off (#support/settlement-timing).
    VoidTransaction: async () => ({
      TransactionID: (await unsettledSale(profileId, 31, mid)).transactionId,
    }),
    DeleteWebhookEndpoint: async () => ({ WebhookEndpointID: await newEndpoint() }),
    // The sandbox's dispute card (product_not_received at the 1st cut-off after settlement): the
    // test clock brings the notice forward and the local backstop applies it.
    GetDispute: async () => {
      const disputed = await createPayor(
        { paymentMethod: cardInput({ cardNumber: '4000000000002685' }) },
        mid,
      );
      await made('POST', `${v1}/transactions`, {
        profileId: `${disputed.payorId}/${disputed.defaultPaymentMethodId}`,
        amount: 30,
      });
      for (let i = 0; i < 40; i++) {
        await made('POST', `/rest/merchants/${mid}/settle-now`);
        await fetch(`${baseUrl()}/__local/events/notices`, { method: 'POST' });
        const { items } = await made<{ items: { disputeId: string }[] }>('GET', `${v1}/disputes`);
        if (items[0]) return { DisputeID: items[0].disputeId };
        await sleep(500);
      }
      throw new Error('the dispute card was not disputed');
    },
    DeleteSeries: async () => ({ SeriesID: await newSeries() }),
    // A refund needs a settled sale: the test clock (SettleNow, just before) or the cut-off.
    RefundTransaction: async () => {
      for (let i = 0; i < 40; i++) {
        const { settled } = await made<{ settled: boolean }>(
          'GET',
          `${v1}/transactions/${ids.TransactionID}`,
        );
        if (settled) break;
        await sleep(500);
      }
      return {};
    },
  });
}, 60_000);

// The test clock settles the merchant's sales, which the refund needs: both go last.
const LAST = ['SettleNow', 'RefundTransaction'];
const ordered = [
  ...operations.filter((o) => !LAST.includes(o.id)),
  ...LAST.flatMap((id) => operations.filter((o) => o.id === id)),
];

test('every operation has examples', () => {
  const missing = operations.filter((o) => !operationExamples[exampleRoute.get(o.id) ?? o.id]);
  expect(missing.map((o) => o.id)).toEqual([]);
});

describe.each(ordered.map((o) => [o.id, o] as const))('%s', (_id, operation) => {
  let opIds: Ids;
  beforeAll(async () => {
    opIds = { ...ids, ...(await prepare[operation.id]?.()) };
  }, 30_000);

  test('its documented requests answer the documented status and schema', async () => {
    for (const [, body] of documentedRequests(operation)) {
      if (body !== undefined) {
        const validate = validatorAt(requestSchemaPointer(operation.path, operation.method));
        const valid = validate(body);
        expect({ valid, problems: valid ? [] : problemsOf(validate) }).toEqual({ valid: true, problems: [] });
      }
      // An operation without security (the health check) is sent no token, as documented.
      const open = Array.isArray(operation.op.security) && operation.op.security.length === 0;
      const reply = await call(
        operation.method.toUpperCase(),
        urlOf(operation, opIds, documentedQuery(operation)),
        substitute(body, opIds),
        open ? { token: null } : {},
      );
      expectDocumented(operation, reply, successStatus(operation));
      // Its documented success example is what it answers, where the answer is fixed.
      if (open) expect(reply.body).toEqual(documentedSuccess(operation));
    }
  });

  // Every operation but the health check (it reads no input) has an invalid example.
  if (operationExamples[exampleRoute.get(operation.id) ?? operation.id]?.invalid !== undefined)
    test('its invalid example request answers its documented 400', async () => {
      const response = (operation.op.responses as Record<string, Json>)['400'] as {
        content: Record<string, { examples: { invalid: { value: unknown } } }>;
      };
      const documented = response.content['application/json']!.examples.invalid.value;
      const invalid = operationExamples[exampleRoute.get(operation.id) ?? operation.id]!.invalid!;
      const reply = await call(
        operation.method.toUpperCase(),
        urlOf(operation, opIds, invalid.query),
        substitute(invalid.body, opIds),
      );
      expectDocumented(operation, reply, '400');
      expect(reply.body).toEqual(substitute(documented, opIds));
    });
});
