/**
 * The one way an API handler is built: middy with the Powertools logger, a request parser
 * (scope, path parameters, merchant authorization, query, JSON body) and one error mapper that
 * turns typed errors into `{message, responseCode}`. Handlers stay thin: they get a parsed,
 * authorized request and return `{status, body}`. Who may act for a merchant is asked of the
 * `authorize` function the builder is made with (core/merchants.ts: the merchant registry).
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { PathParams } from '#contract/params';
import type { Route } from '#contract/routes/index';
import { redactCardNumbers } from './card-number';
import { config } from './config';
import { isTransient } from './ddb';
import { ServiceError } from './errors';
import { newId } from './ids';
import { logger } from './logger';
import { traceInvocations } from './tracer';
import { validator, ValidationError, type Problem } from './validation';
import {
  bodyParser,
  clientOf,
  parsePathParams,
  parseQuery,
  requestKey,
  type KeySource,
} from './http-request';
import type { RouteCheck } from './route-check';
import { clock } from './clock';

export { MAX_BODY_BYTES, type KeySource } from './http-request';

// Every function fails its cold start on a missing or malformed variable, not a later request.
config();

/** A schema's value type; a list of schemas is validated by the handler itself (`unknown`). */
type SchemaValue<S> = S extends readonly unknown[] ? unknown : S extends JSONSchema ? FromSchema<S> : unknown;

/** The contract entry of a route's checks (each member's, for a union). */
type RouteOf<C> = C extends RouteCheck<infer R> ? R : never;

/** The validated body of route `R`: undefined without a body schema, or when an optional body is absent. */
type BodyOf<R extends Route> = R extends { body: { schema: infer S } }
  ? SchemaValue<S> | (R extends { body: { optional: true } } ? undefined : never)
  : undefined;

/** The validated query of route `R`; without a query schema the raw parameters. */
type QueryOf<R extends Route> = R extends { query: { schema: infer S } }
  ? SchemaValue<S>
  : Readonly<Record<string, string>>;

/** The merchant a request acts for, as `authorize` found it. */
interface AuthorizedMerchant {
  /** The 11-digit MID records hold. */
  readonly merchantId: string;
}

/**
 * The merchant this client may act for under the path's MID (8 or 11 digits); throws (403) for
 * an unknown merchant or one not granted to the client.
 */
type Authorize<M extends AuthorizedMerchant> = (clientId: string, mid: string, nowMs: number) => Promise<M>;

/** Where a request named its idempotency key: the `Idempotency-Key` header or the body's `idempotencyKey`. */

/** The answer an idempotency record keeps and replays. */
interface KeptAnswer {
  status: number;
  body: unknown;
}

/**
 * Runs a keyed request once per key (core/idempotency.ts `idempotent`, passed in by
 * core/merchants.ts): `work` gets the id of the resource it creates, fixed by the key's first
 * request (`resumed` when a retry resumes a request that died half-way). Throws 422 or 409 for a
 * key of another request, 409 while the first runs; a replay comes back with `replayed`.
 */
type RunIdempotent = (
  ref: { merchantId: string; scope: string; key: string },
  request: unknown,
  newResourceId: string,
  now: Date,
  work: (resourceId: string, resumed: boolean) => Promise<KeptAnswer>,
  source: KeySource,
) => Promise<KeptAnswer & { replayed?: true }>;

/** A keyed request as its handler sees it. */
interface RequestKey {
  readonly key: string;
  readonly source: KeySource;
  /** The id of what the request creates: the same on every retry with the key. */
  readonly resourceId: string;
  /** A retry is resuming the key's first request, which died half-way: its resource may exist. */
  readonly resumed: boolean;
}

interface ApiRequest<R extends Route, M extends AuthorizedMerchant> {
  readonly event: APIGatewayProxyEvent;
  readonly clientId: string;
  readonly merchant: M;
  /** Validated, normalized path parameters (UUIDs lower-cased): those of the route's path. */
  readonly params: PathParams<R['path']>;
  readonly query: QueryOf<R>;
  readonly body: BodyOf<R>;
  readonly now: Date;
  /** Present when the route takes a key (its entry's `idempotency`) and the request sent one. */
  readonly idempotency?: RequestKey;
}

interface ApiResult {
  status: number;
  body?: unknown;
  /** Headers besides the content type (with `text`: the content type too). */
  headers?: Record<string, string>;
  /**
   * A body sent as it is instead of `body` as JSON (a CSV page), its `content-type` in `headers`.
   * Never kept by an idempotency record: only GET routes answer text.
   */
  text?: string;
  /**
   * `text` is the base64 of bytes (an .xlsx page): API Gateway sends them out as bytes for a type
   * of its binaryMediaTypes (contract/media-types.ts).
   */
  isBase64Encoded?: true;
}

/**
 * What a key's record keeps of an answer, and how a replay answers from it, for an answer that
 * does not fit a record (a group of 10,000 payments) or must not be kept in the clear (a webhook
 * secret). Without it the record keeps the answer itself.
 */
interface KeptAs<Req> {
  record(result: ApiResult, request: Req): unknown;
  replay(kept: unknown, request: Req): Promise<ApiResult>;
}

interface RouteOptions<Req = never> {
  /**
   * Runs on the parsed JSON body before the route's schema, for refusals the schema cannot word
   * (e.g. `deleted cannot be set by PUT`).
   */
  precheck?: (value: unknown) => void;
  /**
   * The problems of a part of the body its schema passes through (a payor's `paymentMethod`, one
   * of several schemas, checked in code): listed with the schema's (DESIGN: every problem).
   */
  nested?: (value: unknown) => readonly Problem[];
  /** For a keyed route: what its records keep instead of the answer (KeptAs). */
  keep?: KeptAs<Req>;
}

const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', ...headers },
  body: status === 204 || body === undefined ? '' : JSON.stringify(body),
});

/** A scope's `{Name}` placeholders filled from the path. */
const fillScope = (scope: string, params: Record<string, string>): string =>
  scope.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');

const errorBody = (status: number, message: string, errors?: readonly Problem[]) => ({
  message,
  responseCode: status,
  ...(errors && { errors }),
});

/**
 * middy's early answer before the function's own timeout (answered 500 it would read as the service failing): the work
 * may be half done, which a repeat finishes, so it is a 503 like any transient failure.
 */
const ranOutOfTime = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'TimeoutError' &&
  (error.cause as { package?: string } | undefined)?.package === '@middy/core';

/** Maps typed errors to their status; anything unexpected is logged and becomes a plain 500. */
export function errorResponse(error: unknown): APIGatewayProxyResult {
  if (error instanceof ServiceError) {
    if (error.status >= 500) logger.warn('request failed', { error });
    else logger.info('request refused', { status: error.status, reason: error.message });
    return serviceErrorResponse(error);
  }
  if (isTransient(error)) {
    logger.warn('transient dependency failure', { error });
    return json(503, errorBody(503, 'Service temporarily unavailable; retry with backoff'));
  }
  if (error instanceof Error && error.name === 'ProcessorUnavailableError') {
    // The processor gave no answer; the step was written ahead and a repeat resumes it.
    logger.warn('processor gave no answer', { error });
    return json(503, errorBody(503, 'The payment processor gave no answer in time; retry with backoff'));
  }
  if (ranOutOfTime(error)) {
    // Every write is conditional and every money step written ahead, so a repeat is safe.
    logger.error('request ran out of time', { error });
    return json(503, errorBody(503, 'The request ran out of time before it finished; retry with backoff'));
  }
  logger.error('unexpected error', { error });
  return json(500, errorBody(500, 'Internal server error'));
}

/**
 * A ServiceError's answer, with its headers (`Retry-After` of a request still in progress). Its
 * words never carry a card number: a refusal may name what the request sent (a path id, a key, a
 * profileId), and whatever of it looks like a card number is shown as `[card number]`.
 */
function serviceErrorResponse(error: ServiceError): APIGatewayProxyResult {
  const problems =
    error instanceof ValidationError
      ? error.problems.slice(0, MAX_PROBLEMS).map((p) => ({
          field: echoed(p.field),
          message: echoed(p.message),
        }))
      : undefined;
  return json(
    error.status,
    { ...errorBody(error.status, echoed(error.message), problems), ...error.details },
    { ...error.headers },
  );
}

/**
 * What a refusal echoes of the request is clipped, and it lists at most MAX_PROBLEMS problems: a
 * name the request made up (an unknown key of megabytes, repeated in a message and a field) would
 * otherwise make a 400 larger than Lambda's 6 MB answer (a 502) from a small request.
 */
const MAX_ECHO = 2000;
const MAX_PROBLEMS = 100;
const echoed = (text: string): string => {
  const clean = redactCardNumbers(text);
  return clean.length > MAX_ECHO ? `${clean.slice(0, MAX_ECHO)}…` : clean;
};

/**
 * The builder of the handlers of routes under `/rest/merchants/{MID}` (or
 * `/v1/rest/merchants/{MID}`), each request acting for the merchant `authorize` answers.
 */
export function merchantRoutes<M extends AuthorizedMerchant>(
  authorize: Authorize<M>,
  runIdempotent: RunIdempotent,
) {
  /**
   * The handler of one route: its path parameters, body and query are checked as its entry in the
   * route table declares, with the validators compiled from it (a RouteCheck of
   * lambdas/generated/validators.ts); a route that declares `idempotency` runs once per key.
   */
  return <const C extends RouteCheck, R extends Route = RouteOf<C>>(
    route: C,
    fn: (request: ApiRequest<R, M>) => Promise<ApiResult>,
    options: RouteOptions<ApiRequest<R, M>> = {},
  ) => merchantHandler(route, authorize, runIdempotent, fn, options);
}

/**
 * Runs the handler once per idempotency key (docs/decisions.md "Idempotency-Key on every POST"):
 * after the request is authorized and valid, so that a refused request never holds a key. The
 * request hashed is the operation, the path parameters below the merchant and the body; where
 * the body takes the key (sales, refunds, group creates: their own scopes) the body with the key
 * in it, as a body key was always hashed, so that both forms name the same request.
 */
async function runKeyed<R extends Route, M extends AuthorizedMerchant>(
  route: RouteCheck,
  runIdempotent: RunIdempotent,
  request: ApiRequest<R, M>,
  fn: (request: ApiRequest<R, M>) => Promise<ApiResult>,
  options: RouteOptions<ApiRequest<R, M>>,
): Promise<ApiResult> {
  const declared = route.idempotency;
  const named = declared && requestKey(request.event, declared.bodyKey, request.body);
  if (!declared || !named) return fn(request);
  const params = request.params as Record<string, string>;
  const ref = {
    merchantId: request.merchant.merchantId,
    scope: fillScope(declared.scope, params),
    key: named.key,
  };
  const { MID: _mid, ...below } = params;
  const hashed = declared.bodyKey
    ? { ...(request.body as unknown as object), idempotencyKey: named.key }
    : { operation: declared.operation, params: below, body: request.body ?? null };
  let fresh: ApiResult | undefined;
  const kept = await runIdempotent(
    ref,
    hashed,
    newId(),
    request.now,
    async (resourceId, resumed) => {
      const keyed = { ...request, idempotency: { ...named, resourceId, resumed } };
      fresh = await fn(keyed);
      const body = options.keep ? await options.keep.record(fresh, keyed) : fresh.body;
      return { status: fresh.status, body: body ?? null };
    },
    named.source,
  );
  if (fresh) return fresh;
  const replayed = options.keep
    ? await options.keep.replay(kept.body, request)
    : { status: kept.status, body: kept.body ?? undefined };
  return { ...replayed, headers: { ...replayed.headers, 'idempotent-replayed': 'true' } };
}

function merchantHandler<R extends Route, M extends AuthorizedMerchant>(
  route: RouteCheck,
  authorize: Authorize<M>,
  runIdempotent: RunIdempotent,
  fn: (request: ApiRequest<R, M>) => Promise<ApiResult>,
  options: RouteOptions<ApiRequest<R, M>>,
) {
  const parseBody = bodyParser(route, options.precheck, options.nested);
  // A route without a query schema takes none: every name is refused.
  const queryValidator = validator(route.query, 'query');
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(traceInvocations())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({ onError: (request) => void (request.response = errorResponse(request.error)) })
    .handler(async (event) => {
      const now = clock.now();
      const clientId = clientOf(event);
      const params = parsePathParams(event);
      logger.appendKeys({ clientId, mid: params.MID, paymentGroupId: params.GroupID });
      const query = parseQuery(event);
      const merchant = await authorize(clientId, params.MID ?? '', now.getTime());
      logger.appendKeys({ merchantId: merchant.merchantId });
      const body = parseBody(event) as BodyOf<R>;
      // Validated after the body, as the handlers did before the route table declared queries.
      const checkedQuery = queryValidator(query) as QueryOf<R>;
      // The path matched the route's template, so exactly its placeholders are present.
      const typedParams = params as PathParams<R['path']>;
      const request = { event, clientId, merchant, params: typedParams, query: checkedQuery, body, now };
      const result = await runKeyed(route, runIdempotent, request, fn, options);
      // The access log: never bodies, which may hold account numbers.
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.status,
        ms: clock.nowMs() - now.getTime(),
      });
      if (result.text !== undefined)
        return {
          statusCode: result.status,
          headers: { ...result.headers },
          body: result.text,
          ...(result.isBase64Encoded && { isBase64Encoded: true }),
        };
      return json(result.status, result.body, result.headers);
    });
}

/**
 * The builder of an inbound route that a processor calls (`POST /processor-events/<processor>`):
 * no bearer token (the processor signs its body instead, checked by `fn` before it reads any of
 * it), the raw body as sent, at most `maxBytes` of it (413 beyond). The answer and errors are as
 * every route's; the access log names neither body nor headers.
 */
export function inboundRoute(
  maxBytes: number,
  fn: (request: {
    body: string;
    headers: Record<string, string | undefined>;
    now: Date;
  }) => Promise<ApiResult>,
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(traceInvocations())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({ onError: (request) => void (request.response = errorResponse(request.error)) })
    .handler(async (event) => {
      const now = clock.now();
      const raw = event.body ?? '';
      const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
      let result: ApiResult;
      if (bytes.length > maxBytes)
        result = { status: 413, body: errorBody(413, `the body is over ${maxBytes} bytes`) };
      else {
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(event.headers ?? {}))
          headers[name.toLowerCase()] = typeof value === 'string' ? value : undefined;
        result = await fn({ body: bytes.toString('utf8'), headers, now });
      }
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.status,
        ms: clock.nowMs() - now.getTime(),
      });
      return json(result.status, result.body, { ...result.headers });
    });
}
