/**
 * The one way an API handler is built: middy with the Powertools logger, a request parser
 * (scope, path parameters, merchant authorization, query, JSON body) and one error mapper that
 * turns typed errors into `{message, responseCode}`. Handlers stay thin: they get a parsed,
 * authorized request and return `{status, body}`.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { apiScope } from '#contract/stage';
import { config } from './config';
import { ddb, isTransient } from './ddb';
import { BadRequestError, ForbiddenError, ServiceError, UnauthorizedError } from './errors';
import { logger } from './logger';
import { MerchantRegistry, type Merchant } from './merchants';
import { tracer } from './tracer';
import type { Validator } from './validation';

/** Lambda's synchronous payload limit is 6 MB; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024 - 64 * 1024;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const MID = /^\d{8}(\d{3})?$/;

/** How each path parameter is checked and named in messages. */
const PATH_PARAMS: Record<string, { pattern: RegExp; what: string; normalize?: (v: string) => string }> = {
  MID: { pattern: MID, what: 'an 8 or 11 digit merchant ID' },
  GroupID: { pattern: UUID, what: 'a UUID', normalize: (v) => v.toLowerCase() },
  PaymentID: { pattern: UUID, what: 'a UUID', normalize: (v) => v.toLowerCase() },
  PayorID: { pattern: UUID, what: 'a UUID', normalize: (v) => v.toLowerCase() },
  PaymentMethodID: { pattern: UUID, what: 'a UUID', normalize: (v) => v.toLowerCase() },
  TransactionID: { pattern: UUID, what: 'a UUID', normalize: (v) => v.toLowerCase() },
};

export interface ApiRequest<B> {
  readonly event: APIGatewayProxyEvent;
  readonly clientId: string;
  readonly merchant: Merchant;
  /** Validated, normalized path parameters (UUIDs lower-cased). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: B;
  readonly now: Date;
}

export interface ApiResult {
  status: number;
  body?: unknown;
}

export interface RouteOptions<B> {
  /** Validates the parsed JSON body; without it, a body is ignored. */
  body?: Validator<B>;
  /** When the body may be absent (e.g. optional filters), the validator receives `undefined`. */
  bodyOptional?: boolean;
}

const json = (status: number, body: unknown): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'content-type': 'application/json' },
  body: status === 204 || body === undefined ? '' : JSON.stringify(body),
});

export const errorBody = (status: number, message: string) => ({ message, responseCode: status });

let registry: MerchantRegistry | undefined;
const grantCache = new Map<string, { merchant: Merchant; until: number }>();

/** The merchant this client may act for under the path MID; 403 for unknown or not granted. */
async function authorize(clientId: string, mid: string, nowMs: number): Promise<Merchant> {
  const cacheKey = `${clientId}|${mid}`;
  const hit = grantCache.get(cacheKey);
  if (hit && hit.until > nowMs) return hit.merchant;
  registry ??= new MerchantRegistry(ddb(), config().tableName);
  const merchant = await registry.authorized(clientId, mid);
  if (!merchant) {
    grantCache.delete(cacheKey);
    throw new ForbiddenError(`client ${clientId} is not authorized for merchant ${mid}`);
  }
  const ttl = config().authzCacheSeconds * 1000;
  if (ttl > 0) grantCache.set(cacheKey, { merchant, until: nowMs + ttl });
  return merchant;
}

function parsePathParams(event: APIGatewayProxyEvent): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(event.pathParameters ?? {})) {
    const rule = PATH_PARAMS[name];
    let value: string;
    try {
      value = raw === undefined ? '' : decodeURIComponent(raw);
    } catch {
      throw new BadRequestError(`${name} is not validly percent-encoded`);
    }
    if (rule && !rule.pattern.test(value))
      throw new BadRequestError(`${name} must be ${rule.what} (got "${value}")`);
    params[name] = rule?.normalize ? rule.normalize(value) : value;
  }
  return params;
}

function parseQuery(event: APIGatewayProxyEvent): Record<string, string> {
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) throw new BadRequestError(`query parameter ${name} must be given once`);
  }
  return Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
}

function parseBody<B>(event: APIGatewayProxyEvent, options: RouteOptions<B>): B {
  if (!options.body) return undefined as B;
  let raw = event.body ?? '';
  if (event.isBase64Encoded) raw = Buffer.from(raw, 'base64').toString('utf8');
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES) {
    throw new BadRequestError(`body is too large (limit ${MAX_BODY_BYTES} bytes)`);
  }
  if (raw.trim() === '') {
    if (options.bodyOptional) return options.body(undefined);
    throw new BadRequestError('body is required (JSON object)');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new BadRequestError('body is not valid JSON');
  }
  return options.body(parsed);
}

function clientOf(event: APIGatewayProxyEvent): string {
  const claims = (event.requestContext.authorizer?.claims ?? {}) as Record<string, string | undefined>;
  const clientId = claims.client_id;
  if (!clientId) throw new UnauthorizedError('Unauthorized');
  // Defense in depth: the authorizer checks the scope too.
  const scopes = (claims.scope ?? '').split(' ');
  if (!scopes.includes(apiScope(config().stage))) {
    throw new ForbiddenError(`token lacks the scope ${apiScope(config().stage)}`);
  }
  return clientId;
}

/** Maps typed errors to their status; anything unexpected is logged and becomes a plain 500. */
export function errorResponse(error: unknown): APIGatewayProxyResult {
  if (error instanceof ServiceError) {
    if (error.status >= 500) logger.warn('request failed', { error });
    else logger.info('request refused', { status: error.status, reason: error.message });
    return json(error.status, errorBody(error.status, error.message));
  }
  if (isTransient(error)) {
    logger.warn('transient dependency failure', { error });
    return json(503, errorBody(503, 'Service temporarily unavailable; retry with backoff'));
  }
  logger.error('unexpected error', { error });
  return json(500, errorBody(500, 'Internal server error'));
}

/** A route under `/rest/merchants/{MID}` (or `/v1/rest/merchants/{MID}`). */
export function merchantRoute<B = undefined>(
  options: RouteOptions<B>,
  fn: (request: ApiRequest<B>) => Promise<ApiResult>,
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(captureLambdaHandler(tracer))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({ onError: (request) => void (request.response = errorResponse(request.error)) })
    .handler(async (event) => {
      const now = new Date();
      const clientId = clientOf(event);
      const params = parsePathParams(event);
      logger.appendKeys({ clientId, mid: params.MID, paymentGroupId: params.GroupID });
      const query = parseQuery(event);
      const merchant = await authorize(clientId, params.MID ?? '', now.getTime());
      logger.appendKeys({ merchantId: merchant.merchantId });
      const body = parseBody(event, options);
      const result = await fn({ event, clientId, merchant, params, query, body, now });
      // The access log: never bodies, which may hold account numbers.
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.status,
        ms: Date.now() - now.getTime(),
      });
      return json(result.status, result.body);
    });
}
