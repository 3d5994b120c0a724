/**
 * The `x-codeSamples` of an operation (Redoc shows them as tabs beside the operation): a curl
 * command and a call of the TypeScript client (client/, npm `@scheduled-payments/client`), both
 * made from the operation's own examples (contract/examples), the ones the contract test
 * (test/e2e/contract-examples.test.ts) sends: the path with the placeholder ids, the query
 * example, the first request body example. The base URL is the document's real one
 * (docs/decisions.md "Code samples and the base URL of the docs page").
 */
import { pathParamNames } from '#contract/params';
import type { Route } from '#contract/routes/index';
import { examplesOf, pathExample } from './examples';
import { takesKey } from './parameters';

/** One entry of `x-codeSamples`, as Redoc reads it. */
interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The client package's name, as an integrator imports it (client/package.json). */
export const CLIENT_PACKAGE = '@scheduled-payments/client';

/** The client's tarball as `npm pack` names it (client/package.json's name and version). */
export const CLIENT_TARBALL = 'scheduled-payments-client-0.1.0.tgz';

/**
 * How an integrator gets the client, which no registry holds: packed from a checkout of the
 * service's repository and installed as a `file:` dependency. The docs page (overview.ts) and
 * docs/integrating.md give these exact lines; test/e2e/client-package.test.ts runs them.
 */
export const CLIENT_INSTALL = [
  'APP=~/my-app                                 # your project',
  'npm pack ./client --pack-destination "$APP"  # in a checkout of this repository, after npm ci',
  `cd "$APP" && npm install ./${CLIENT_TARBALL}`,
].join('\n');

/**
 * The client method of each operation (an alias: of its target). The method takes the path
 * parameters after MID in the path's order, then the body (when the operation has one), then the
 * query (when the example sends one). test/unit/openapi-code-samples.test.ts fails an operation
 * missing here, a method the client class lacks, and a sample that does not type-check against it.
 */
export const CLIENT_METHODS: Readonly<Record<string, string>> = {
  ListPendingGroups: 'listPendingGroups',
  ListGroups: 'listGroups',
  CreateGroup: 'createGroup',
  GetGroup: 'getGroup',
  UpdateGroup: 'updateGroup',
  DeleteGroup: 'deleteGroup',
  ListPayments: 'listPayments',
  AddPayment: 'addPayment',
  GetPayment: 'getPayment',
  UpdatePayment: 'updatePayment',
  DeletePayment: 'deletePayment',
  VoidOrRefundGroup: 'voidOrRefundGroup',
  ProcessGroup: 'processGroup',
  RetryMerchant: 'retryMerchant',
  ProcessMerchant: 'processMerchant',
  SettleNow: 'settleNow',
  GetMerchantSettings: 'getMerchantSettings',
  UpdateMerchantSettings: 'updateMerchantSettings',
  GetReturnRates: 'getReturnRates',
  CreatePayor: 'createPayor',
  SearchPayors: 'searchPayors',
  BulkSearchPayors: 'bulkSearchPayors',
  GetPayor: 'getPayor',
  UpdatePayor: 'updatePayor',
  DeletePayor: 'deletePayor',
  ListMethods: 'listMethods',
  AddMethod: 'addMethod',
  GetMethod: 'getMethod',
  UpdateMethod: 'updateMethod',
  DeleteMethod: 'deleteMethod',
  CreateSale: 'createSale',
  GetTransaction: 'getTransaction',
  VoidTransaction: 'voidTransaction',
  RefundTransaction: 'refundTransaction',
  ListEvents: 'listEvents',
  GetEvent: 'getEvent',
  CreateWebhookEndpoint: 'createWebhookEndpoint',
  ListWebhookEndpoints: 'listWebhookEndpoints',
  GetWebhookEndpoint: 'getWebhookEndpoint',
  UpdateWebhookEndpoint: 'updateWebhookEndpoint',
  DeleteWebhookEndpoint: 'deleteWebhookEndpoint',
  RotateWebhookSecret: 'rotateWebhookSecret',
  ListWebhookDeliveries: 'listWebhookDeliveries',
  ReplayWebhookEvents: 'replayWebhookEvents',
  ListSeries: 'listSeries',
  CreateSeries: 'createSeries',
  GetSeries: 'getSeries',
  UpdateSeries: 'updateSeries',
  DeleteSeries: 'cancelSeries',
  GroupReport: 'groupReport',
};

/** What the samples of an operation show. */
interface Request {
  method: Route['method'];
  /** The path with the example ids. */
  path: string;
  /** The example ids of the path parameters, in the path's order. */
  pathValues: string[];
  query: Record<string, string> | undefined;
  body: unknown;
}

function requestOf(route: Route): Request {
  const examples = examplesOf(route);
  const value = (name: string): string => {
    const example = pathExample(name);
    if (example === undefined) throw new Error(`route ${route.id}: no example id for {${name}}`);
    return example;
  };
  const query = examples.query && Object.keys(examples.query).length > 0 ? examples.query : undefined;
  const first = examples.requests && Object.values(examples.requests)[0];
  return {
    method: route.method,
    path: route.path.replace(/\{(\w+)\}/g, (_, name: string) => value(name)),
    pathValues: pathParamNames(route.path).map(value),
    query,
    body: route.body ? first?.value : undefined,
  };
}

/** `text` as one shell word in single quotes. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The curl command: the request line, the token, the key of a POST that takes one, the body. */
function curlSample(route: Route, baseUrl: string): CodeSample {
  const request = requestOf(route);
  const search = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const url = `${baseUrl}${request.path}${search}`;
  const lines = [
    `curl ${request.method === 'GET' ? '' : `-X ${request.method} `}${shellQuote(url)}`,
    `-H "Authorization: Bearer $TOKEN"`,
  ];
  // The body's idempotencyKey is the same key, and must agree; else a new key per request
  // (uuidgen: util-linux, macOS). Sending the same one again retries the request.
  const bodyKey = (request.body as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;
  if (takesKey(route))
    lines.push(
      typeof bodyKey === 'string'
        ? `-H ${shellQuote(`Idempotency-Key: ${bodyKey}`)}`
        : `-H "Idempotency-Key: $(uuidgen)"`,
    );
  if (request.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body, null, 2).replace(/\n/g, '\n  '))}`);
  }
  return { lang: 'Shell', label: 'curl', source: lines.join(' \\\n  ') };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `value` (JSON) as a TypeScript literal in the project's style, its later lines indented by `indent`. */
function literal(value: unknown, indent: string): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (k: string) => (IDENTIFIER.test(k) ? k : literal(k, inner));
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** The client's call: constructed with the document's URLs, the operation's method with its example. */
function typeScriptSample(route: Route, baseUrl: string, tokenUrl: string): CodeSample {
  const id = route.aliasOf ?? route.id;
  const method = CLIENT_METHODS[id];
  if (method === undefined) throw new Error(`operation ${id} has no client method in CLIENT_METHODS`);
  const request = requestOf(route);
  const objects = [request.body, request.query].filter((v) => v !== undefined);
  const ids = request.pathValues.map((v) => literal(v, ''));
  // On one line while short; else one argument a line.
  const short = [...ids, ...objects.map((v) => literal(v, ''))];
  const call =
    short.every((a) => !a.includes('\n')) && short.join(', ').length <= 60
      ? `client.${method}(${short.join(', ')})`
      : ids.join(', ').length <= 60
        ? `client.${method}(${[...ids, ...objects.map((v) => literal(v, ''))].join(', ')})`
        : `client.${method}(\n${[...ids, ...objects.map((v) => literal(v, '  '))].map((a) => `  ${a},`).join('\n')}\n)`;
  const lines = [
    `import { ScheduledPaymentsClient } from '${CLIENT_PACKAGE}';`,
    '',
    'const client = new ScheduledPaymentsClient({',
    `  baseUrl: ${literal(baseUrl, '')},`,
    `  tokenUrl: ${literal(tokenUrl, '')},`,
    '  clientId: process.env.CLIENT_ID!,',
    '  clientSecret: process.env.CLIENT_SECRET!,',
    '});',
    '',
    ...(route.aliasOf !== undefined
      ? ['// The client calls the current path of this deprecated alias.']
      : []),
    ...(takesKey(route)
      ? ['// The client sends an Idempotency-Key, the same on each retry: no retry does it twice.']
      : []),
    route.status === 204 ? `await ${call};` : `const answer = await ${call};`,
  ];
  return { lang: 'TypeScript', label: 'TypeScript', source: lines.join('\n') };
}

/** The `x-codeSamples` of `route`. */
export const codeSamples = (route: Route, baseUrl: string, tokenUrl: string): CodeSample[] => [
  curlSample(route, baseUrl),
  typeScriptSample(route, baseUrl, tokenUrl),
];
