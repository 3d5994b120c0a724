/**
 * What the gateway answers for a request no route takes, locally (lib/local/http-server.ts) and in
 * the cloud (lib/cdk/api-fallbacks.ts) alike: a route's path with another method is 405 with an
 * `Allow` header; a merchant path under the other prefix (groups and payments are under `/rest`,
 * payors and transactions under `/v1/rest`) is 404 naming the prefix it belongs under. Both after
 * the bearer token is checked, as every API Gateway method has the authorizer. Anything else is the
 * plain 404. The body stays `{message, responseCode}`.
 */
import type { Route } from './routes/types';

/** Each route path with its methods, in route-table order: the path's `Allow` header. */
export function methodsByPath(routes: readonly Route[]): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  return byPath;
}

export const methodNotAllowedMessage = (allow: readonly string[]): string =>
  `Method not allowed: this path answers ${allow.join(', ')}`;

/**
 * The two merchant prefixes: a path under one that belongs under the other gets the other's
 * message. `catchAll` is the API Gateway resource that takes such paths in the cloud.
 */
export const MERCHANT_PREFIXES = [
  {
    prefix: '/rest/merchants/',
    catchAll: '/rest/merchants/{MID}/{proxy+}',
    message: 'Not found under /rest: payor and transaction paths start with /v1/rest/merchants/{MID}',
  },
  {
    prefix: '/v1/rest/merchants/',
    catchAll: '/v1/rest/merchants/{MID}/{proxy+}',
    message: 'Not found under /v1/rest: group and payment paths start with /rest/merchants/{MID}',
  },
] as const;

/**
 * The 404 message for `path` when it would be a route's path under the other prefix (`isRoute`
 * tells whether a concrete path is one); undefined otherwise.
 */
export function wrongPrefixMessage(path: string, isRoute: (path: string) => boolean): string | undefined {
  const [rest, v1] = MERCHANT_PREFIXES;
  if (path.startsWith(v1.prefix)) return isRoute(path.slice('/v1'.length)) ? v1.message : undefined;
  if (path.startsWith(rest.prefix)) return isRoute(`/v1${path}`) ? rest.message : undefined;
  return undefined;
}
