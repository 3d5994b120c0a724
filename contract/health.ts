/**
 * The health route: `GET /health`, for uptime checks and load balancers. No token, no data: it
 * answers that the API's front door (API Gateway's stage and its WAF, or the local gateway) takes
 * requests, the same fixed body every time, and reads nothing. In the cloud API Gateway answers
 * it itself (a MOCK integration: no function, no cold start, no table read); locally the gateway
 * does the same (docs/decisions.md "A health route answered by the gateway"). Any other method
 * on the path is 405 with `Allow: GET`, also without a token. It is not one of the route table's
 * routes (contract/routes): those are the merchants' operations, each a function behind the
 * authorizer.
 */
import { methodNotAllowedMessage } from './fallbacks';

export const HEALTH = {
  id: 'GetHealth',
  method: 'GET',
  path: '/health',
  summary: 'Health check (no token)',
  description:
    'Answers `{"status": "ok"}` while the API takes requests: for uptime checks and load balancers. No token is needed and none is read; query parameters and headers are ignored; nothing else is ever in the body (no stage, version, time or data). It is answered by the gateway itself, so it says that the API is reachable, not that every part behind it is well: the stage\'s alarms watch those. It is throttled and filtered by the firewall like every other path. Another method on this path is 405 with `Allow: GET`.',
  /** The whole answer, always; never kept by a cache (each check asks the API). */
  body: { status: 'ok' },
  headers: { 'Cache-Control': 'no-store' },
  /** Another method on the path. */
  notAllowed: { status: 405, allow: 'GET', message: methodNotAllowedMessage(['GET']) },
} as const;

/** The answer's schema (OpenAPI component `Health`). */
export const healthSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'], description: 'Always `ok`.' } },
} as const;
