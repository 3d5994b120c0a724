/**
 * The local stand-in for API Gateway: a Node HTTP server built from the route table. It verifies
 * the bearer token as the Cognito authorizer would, builds the same proxy event API Gateway
 * sends (claims in `requestContext.authorizer.claims`) and calls the route's handler in-process.
 * The health route (contract/health.ts) it answers itself before any token check, as API
 * Gateway's mock does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { methodNotAllowedMessage, wrongPrefixMessage } from '#contract/fallbacks';
import { HEALTH } from '#contract/health';
import { apiTimeoutSecondsOf } from '#contract/limits';
import { apiTimeoutWithProcessor, parseProcessor } from '#contract/processor';
import { isBinaryMediaType, mediaTypes } from '#contract/media-types';
import type { Route } from '#contract/routes/index';
import { apiHandlerTrace } from './api-handler-trace';
import type { TokenIssuer } from './auth';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** API Gateway refuses payloads over 10 MB before any Lambda runs. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** A local-only route (token endpoint, test hooks): raw body in, JSON out, no authorizer. */
export type LocalRoute = (
  req: IncomingMessage,
  body: string,
) => Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  handler: ApiHandler;
}

interface HttpServerOptions {
  routes: readonly Route[];
  handlers: ReadonlyMap<string, ApiHandler>;
  issuer: TokenIssuer;
  stage: string;
  /** Exact-path local routes, keyed `METHOD /path`. */
  localRoutes?: ReadonlyMap<string, LocalRoute>;
}

function compile(route: Route, handler: ApiHandler): CompiledRoute {
  const names: string[] = [];
  // Route paths hold only letters, '/', '-' and {params}: nothing else needs escaping.
  const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`), names, handler };
}

/**
 * The answer with its length, as API Gateway sends it: headers written by writeHead without one
 * made node send the body chunked, which costs both ends a little on every request. A 204 has no
 * body and no length (RFC 9110 8.6).
 */
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text =
    body === undefined || status === 204
      ? ''
      : typeof body === 'string' || Buffer.isBuffer(body)
        ? body
        : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    ...headers,
    ...(status !== 204 && { 'content-length': String(Buffer.byteLength(text)) }),
  });
  res.end(text);
};

/**
 * A function's answer body as API Gateway sends it: a base64 body (`isBase64Encoded`) goes out as
 * bytes when the request's first Accept media type is one of the API's binaryMediaTypes, and as
 * the base64 text otherwise (contract/media-types.ts).
 */
function answerBody(result: APIGatewayProxyResult, accept: string | undefined): string | Buffer {
  if (result.isBase64Encoded !== true) return result.body;
  return isBinaryMediaType(mediaTypes(accept)[0]) ? Buffer.from(result.body, 'base64') : result.body;
}

/**
 * A request body as API Gateway passes it to a proxy integration: base64 (`isBase64Encoded`) when
 * its Content-Type is one of the binaryMediaTypes, else text. The text is the bytes decoded as
 * UTF-8; a byte sequence that is not UTF-8 becomes U+FFFD, the replacement character (AWS
 * documents no refusal of such a body), which the functions refuse in any field
 * (lambdas/shared/well-formed.ts).
 */
function requestBody(
  bytes: Buffer,
  contentType: string | undefined,
): { body: string | null; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { body: null, isBase64Encoded: false };
  if (isBinaryMediaType(mediaTypes(contentType)[0]))
    return { body: bytes.toString('base64'), isBase64Encoded: true };
  return { body: bytes.toString('utf8'), isBase64Encoded: false };
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => ok(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

/**
 * Runs one in-process invocation in its own Lambda InvokeStore context, as the Lambda runtime does
 * for concurrent invocations of one environment: Powertools then keeps per-invocation state (log
 * keys appended with `appendKeys`, the Lambda context) apart. Without it, concurrent local handlers
 * share the one Logger and write each other's keys.
 */
// At load, before any AWS SDK call: the SDK's recursion-detection middleware creates the global
// InvokeStore on its first request, a single-context one unless this variable is set, and the
// first store created is the one every later caller gets. Powertools also reads the variable.
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';
const invokeStore = InvokeStore.getInstanceAsync(true);

async function invokeIsolated<T>(context: Context, fn: () => Promise<T>): Promise<T> {
  const store = await invokeStore;
  if (store.constructor.name !== 'InvokeStoreMulti')
    throw new Error('the InvokeStore was created single-context before lib/local/http-server loaded');
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, fn);
}

/** Invokes `fn` as the function `name` in-process: a fresh Lambda context, its own InvokeStore. */
export function invokeAs<T>(
  name: string,
  timeoutMs: number,
  fn: (context: Context) => Promise<T>,
): Promise<T> {
  const context = lambdaContext(name, timeoutMs);
  return invokeIsolated(context, () => fn(context));
}

/** Node's own answer to an unparsable request is an empty body: give API Gateway's error body. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  const body = JSON.stringify({ message: reason, responseCode: status });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** A Lambda context for an in-process invocation of the function `name`. */
export function lambdaContext(name: string, timeoutMs = 10_000): Context {
  const requestId = randomUUID();
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${name}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/local-${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The 405 (with `Allow`) or wrong-prefix 404 for a request no route takes, if either applies. */
function fallbackOf(
  compiled: readonly CompiledRoute[],
  path: string,
): { status: number; message: string; headers?: Record<string, string> } | undefined {
  const isRoute = (p: string) => compiled.some((c) => c.pattern.test(p));
  const allow = [...new Set(compiled.filter((c) => c.pattern.test(path)).map((c) => c.route.method))];
  if (allow.length > 0)
    return { status: 405, message: methodNotAllowedMessage(allow), headers: { allow: allow.join(', ') } };
  const message = wrongPrefixMessage(path, isRoute);
  return message === undefined ? undefined : { status: 404, message };
}

export function createHttpServer(options: HttpServerOptions): Server {
  const compiled = options.routes.map((route) => {
    const handler = options.handlers.get(route.handler);
    if (!handler) throw new Error(`no handler loaded for ${route.handler}`);
    return compile(route, handler);
  });

  // No request or headers timeout (Node's defaults: 300 s and 60 s): on loopback no client sends
  // its headers slowly, and these timers, checked every 30 s on every connection, are what answer a
  // request 408 (answerClientError). Tests' requests on connections pooled for minutes got that 408
  // under load (a token request, a docs GET) without the cause being found; API Gateway's limits are
  // its own in the cloud.
  const server = createServer({ requestTimeout: 0, headersTimeout: 0 }, (req, res) => {
    void (async () => {
      let url: URL;
      try {
        // Concatenated, not resolved: a path like `//x` stays a path, as at API Gateway.
        url = new URL(`http://127.0.0.1${req.url?.startsWith('/') ? req.url : '/'}`);
      } catch {
        return send(res, 400, { message: 'malformed request target', responseCode: 400 });
      }
      const method = (req.method ?? 'GET').toUpperCase();
      const bytes = await readBody(req);
      if (bytes === undefined) return send(res, 400, { message: 'body is too large', responseCode: 400 });

      // The health route, before any token check: what API Gateway's MOCK answers (contract/health.ts).
      if (url.pathname.replace(/\/$/, '') === HEALTH.path) {
        if (method === HEALTH.method) return send(res, 200, HEALTH.body, HEALTH.headers);
        const { status, allow, message } = HEALTH.notAllowed;
        return send(res, status, { message, responseCode: status }, { allow });
      }

      const local = options.localRoutes?.get(`${method} ${url.pathname}`);
      if (local) {
        const result = await local(req, bytes.toString('utf8'));
        return send(res, result.status, result.body, result.headers);
      }

      let match: { compiled: CompiledRoute; values: string[] } | undefined;
      for (const candidate of compiled) {
        if (candidate.route.method !== method) continue;
        const m = candidate.pattern.exec(url.pathname);
        if (m) {
          match = { compiled: candidate, values: m.slice(1) };
          break;
        }
      }
      // A route's path with another method, or a route's path under the other prefix, is answered
      // after the token is checked, as API Gateway's fallback methods are (contract/fallbacks.ts).
      const fallback = match ? undefined : fallbackOf(compiled, url.pathname);
      if (!match && !fallback) return send(res, 404, { message: 'no such route', responseCode: 404 });

      const auth = await options.issuer.verify(req.headers.authorization);
      if ('status' in auth)
        return send(res, auth.status, { message: auth.message, responseCode: auth.status });
      if (!match) {
        const { status, message, headers } = fallback!;
        return send(res, status, { message, responseCode: status }, headers);
      }

      const { route, names, handler } = match.compiled;
      // A Map, then own properties: names like `__proto__` or `constructor` stay plain keys, as in
      // the JSON event API Gateway sends (assignment to a `{}` would hit Object.prototype).
      const multiMap = new Map<string, string[]>();
      for (const [k, v] of url.searchParams) multiMap.set(k, [...(multiMap.get(k) ?? []), v]);
      const query = Object.fromEntries([...multiMap].map(([k, vs]) => [k, vs[vs.length - 1]!]));
      const multi = Object.fromEntries(multiMap);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const event = {
        resource: route.path,
        path: url.pathname,
        httpMethod: method,
        headers,
        // Every value of each header, as API Gateway passes them beside `headers`.
        multiValueHeaders: Object.fromEntries(
          Object.entries(req.headersDistinct).filter((e): e is [string, string[]] => e[1] !== undefined),
        ),
        queryStringParameters: url.searchParams.size > 0 ? query : null,
        multiValueQueryStringParameters: url.searchParams.size > 0 ? multi : null,
        pathParameters: Object.fromEntries(names.map((n, i) => [n, match.values[i]!])),
        stageVariables: null,
        requestContext: {
          authorizer: { claims: auth.claims },
          requestId: randomUUID(),
          stage: options.stage,
          httpMethod: method,
          path: url.pathname,
          resourcePath: route.path,
          identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
        },
        ...requestBody(bytes, req.headers['content-type']),
      } as unknown as APIGatewayProxyEvent;
      // The route's function runs as long as it would deployed (its own timeout, not a default).
      const seconds = apiTimeoutWithProcessor(
        apiTimeoutSecondsOf(route.handler),
        route.callsProcessor === true,
        parseProcessor(process.env.PROCESSOR),
      );
      const context = lambdaContext(route.id, seconds * 1000);
      // Traced (lib/local/api-handler-trace.ts): the bench's handler CPU per route measures this call.
      const result = await apiHandlerTrace.tracePromise(
        () => invokeIsolated(context, () => handler(event, context)),
        {
          routeId: route.id,
        },
      );
      const answer = answerBody(result, req.headers.accept);
      send(res, result.statusCode, answer, (result.headers ?? {}) as Record<string, string>);
    })().catch((error: unknown) => {
      console.error('local API gateway: handler crashed', error);
      if (!res.headersSent) send(res, 502, { message: 'Internal server error', responseCode: 502 });
    });
  });
  server.on('clientError', answerClientError);
  return server;
}
