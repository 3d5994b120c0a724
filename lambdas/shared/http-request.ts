/**
 * Reading an API request as the route builder (http.ts) does: its path parameters by their
 * contract rules, its query, its JSON body within Lambda's payload limit, its client from the
 * authorizer's claims, and its idempotency key from the header or the body.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { pathParams, type PathParam } from '#contract/params';
import { apiScope } from '#contract/stage';
import { containsCardNumber } from './card-number';
import { config } from './config';
import { BadRequestError, ForbiddenError, UnauthorizedError } from './errors';
import { validator, ValidationError, type Problem, type Validator } from './validation';
import type { RouteCheck } from './route-check';
import { refuseMalformedText } from './well-formed';

export type KeySource = 'header' | 'body';

/** Lambda's synchronous payload limit is 6 MB; larger bodies are refused before parsing. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024 - 64 * 1024;

/** Path parameter rules (contract/params), their patterns compiled once. */
const PATH_RULES = new Map(
  Object.entries(pathParams).map(([name, rule]: [string, PathParam]) => [
    name,
    { ...rule, regExp: new RegExp(rule.pattern) },
  ]),
);

/** The header's rule is the body field's (contract/schemas/common.ts `idempotencyKey`). */
const KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/** The `Idempotency-Key` header, any case, as API Gateway passes headers as they were sent. */
function headerKey(event: APIGatewayProxyEvent): string | undefined {
  const found = Object.entries(event.headers ?? {}).filter(
    ([name, value]) => name.toLowerCase() === 'idempotency-key' && value !== undefined,
  );
  if (found.length === 0) return undefined;
  const value = found[0]![1]!;
  // A header sent twice is in `headers` by its last value only; `multiValueHeaders` has them all.
  const repeated = Object.entries(event.multiValueHeaders ?? {}).some(
    ([name, values]) => name.toLowerCase() === 'idempotency-key' && (values?.length ?? 0) > 1,
  );
  if (found.length > 1 || repeated || !KEY_PATTERN.test(value)) {
    throw new BadRequestError(
      'Idempotency-Key must be one value of 1-100 characters of letters, digits and _ . : -',
    );
  }
  // A key is echoed when it is reused or still running: it must not be a card number.
  if (containsCardNumber(value)) throw new BadRequestError('Idempotency-Key must not contain a card number');
  return value;
}

/**
 * The request's key and where it came from: the header, or for a route whose body takes
 * `idempotencyKey` that field (both given: they must agree).
 */
export function requestKey(
  event: APIGatewayProxyEvent,
  bodyKey: boolean,
  body: unknown,
): { key: string; source: KeySource } | undefined {
  const header = headerKey(event);
  const inBody =
    bodyKey && typeof body === 'object' && body !== null
      ? (body as { idempotencyKey?: string }).idempotencyKey
      : undefined;
  if (header !== undefined && inBody !== undefined && header !== inBody) {
    throw new BadRequestError(
      "Idempotency-Key and the body's idempotencyKey differ: send one key, or the same in both",
    );
  }
  if (header !== undefined) return { key: header, source: 'header' };
  return inBody === undefined ? undefined : { key: inBody, source: 'body' };
}

export function parsePathParams(event: APIGatewayProxyEvent): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(event.pathParameters ?? {})) {
    const rule = PATH_RULES.get(name);
    let value: string;
    try {
      value = raw === undefined ? '' : decodeURIComponent(raw);
    } catch {
      throw new BadRequestError(`${name} is not validly percent-encoded`);
    }
    if (rule && !rule.regExp.test(value))
      throw new BadRequestError(`${name} must be ${rule.what} (got "${value}")`);
    params[name] = rule?.normalize ? rule.normalize(value) : value;
  }
  return params;
}

export function parseQuery(event: APIGatewayProxyEvent): Record<string, string> {
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) throw new BadRequestError(`query parameter ${name} must be given once`);
  }
  return Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
}

/** The route's body: ignored without a body schema; a list of schemas passes the JSON through. */
export function bodyParser(
  route: RouteCheck,
  precheck?: (body: unknown) => void,
  nested?: (body: unknown) => readonly Problem[],
): (event: APIGatewayProxyEvent) => unknown {
  const body = route.body;
  if (!body) return () => undefined;
  const validate: Validator<unknown> = body.validate ? validator(body.validate) : (value) => value;
  return (event) => {
    let raw = event.body ?? '';
    // Decoded as a text body is (bytes that are not UTF-8 become U+FFFD, refused below).
    if (event.isBase64Encoded) raw = Buffer.from(raw, 'base64').toString('utf8');
    if (Buffer.byteLength(raw) > MAX_BODY_BYTES) {
      throw new BadRequestError(`body is too large (limit ${MAX_BODY_BYTES} bytes)`);
    }
    if (raw.trim() === '') {
      if (body.optional) return undefined;
      throw new BadRequestError('body is required (JSON object)');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new BadRequestError('body is not valid JSON');
    }
    // Before the schema: a key is checked wherever it is, and no rule sees text that is not text.
    refuseMalformedText(parsed, 'body');
    precheck?.(parsed);
    if (!nested) return validate(parsed);
    // Every problem: the schema's, then those of the part it passes through.
    const found = nested(parsed);
    let valid: unknown;
    try {
      valid = validate(parsed);
    } catch (error) {
      if (error instanceof ValidationError && found.length > 0)
        throw new ValidationError([...error.problems, ...found]);
      throw error;
    }
    if (found.length > 0) throw new ValidationError([...found]);
    return valid;
  };
}

export function clientOf(event: APIGatewayProxyEvent): string {
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
