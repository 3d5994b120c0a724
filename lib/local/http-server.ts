/**
 * The local stand-in for API Gateway: a Node HTTP server built from the route table. It verifies
 * the bearer token as the Cognito authorizer would, builds the same proxy event API Gateway
 * sends (claims in `requestContext.authorizer.claims`) and calls the route's handler in-process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Route } from '../routes';
import type { TokenIssuer } from './auth';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** API Gateway refuses payloads over 10 MB before any Lambda runs. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

/** A local-only route (token endpoint, test hooks): raw body in, JSON out, no authorizer. */
export type LocalRoute = (req: IncomingMessage, body: string) => Promise<{ status: number; body: unknown }>;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  handler: ApiHandler;
}

export interface HttpServerOptions {
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

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text =
    body === undefined || status === 204 ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
};

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => ok(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
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

export function createHttpServer(options: HttpServerOptions): Server {
  const compiled = options.routes.map((route) => {
    const handler = options.handlers.get(route.handler);
    if (!handler) throw new Error(`no handler loaded for ${route.handler}`);
    return compile(route, handler);
  });

  return createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = (req.method ?? 'GET').toUpperCase();
      const body = await readBody(req);
      if (body === undefined) return send(res, 400, { message: 'body is too large', responseCode: 400 });

      const local = options.localRoutes?.get(`${method} ${url.pathname}`);
      if (local) {
        const result = await local(req, body);
        return send(res, result.status, result.body);
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
      if (!match) return send(res, 404, { message: 'no such route', responseCode: 404 });

      const auth = await options.issuer.verify(req.headers.authorization);
      if ('status' in auth)
        return send(res, auth.status, { message: auth.message, responseCode: auth.status });

      const { route, names, handler } = match.compiled;
      const query: Record<string, string> = {};
      const multi: Record<string, string[]> = {};
      for (const [k, v] of url.searchParams) {
        query[k] = v;
        (multi[k] ??= []).push(v);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const event = {
        resource: route.path,
        path: url.pathname,
        httpMethod: method,
        headers,
        multiValueHeaders: {},
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
        body: body === '' ? null : body,
        isBase64Encoded: false,
      } as unknown as APIGatewayProxyEvent;
      const result = await handler(event, lambdaContext(route.id));
      send(res, result.statusCode, result.body, (result.headers ?? {}) as Record<string, string>);
    })().catch((error: unknown) => {
      console.error('local API gateway: handler crashed', error);
      if (!res.headersSent) send(res, 502, { message: 'Internal server error', responseCode: 502 });
    });
  });
}
