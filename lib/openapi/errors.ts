/** Error responses: every operation's, and the shared response components they reference. */
import type { ErrorStatus } from '#contract/routes/index';
import { json, ref, type ResponseObject } from './types';

export const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'The request is invalid: a malformed path parameter, an invalid query parameter, a missing or invalid body field, a rule of the operation (see its description). Any string of a body, value or key, must be well-formed text sent as UTF-8: a lone surrogate (a `\\uD800`-`\\uDFFF` escape without its pair) or U+FFFD (what bytes that are not UTF-8 become) is refused, naming the field. A body or query that fails its schema also gets `errors`: every problem found, by field. Do not retry unchanged.',
  },
  401: {
    name: 'Unauthorized',
    description: 'The bearer token is missing, malformed or expired. Get a new token and retry once.',
  },
  403: {
    name: 'Forbidden',
    description:
      'The client is not authorized for this merchant (or the merchant is unknown), the token lacks the scope, or the operation is not available in this environment. Do not retry.',
  },
  404: {
    name: 'NotFound',
    description:
      'The resource named in the path does not exist or is not of this merchant (or payor, or group). Do not retry.',
  },
  409: {
    name: 'Conflict',
    description:
      'The first request with this `Idempotency-Key` (or body `idempotencyKey`) is still in progress: retry after `Retry-After` seconds, with the same key. Also: a key given only in the body `idempotencyKey` that was already used with a different body (do not retry). Some operations have other conflicts: see their description.',
  },
  422: {
    name: 'UnprocessableEntity',
    description:
      'The `Idempotency-Key` was already used with a different request (another body, path or operation) within 24 hours. The message names the key. Do not retry: send the new request with a new key.',
  },
  429: { name: 'TooManyRequests', description: 'Throttled. Retry with backoff.' },
  500: {
    name: 'InternalServerError',
    description:
      'Unexpected server error. Retry with backoff (1, 2, 4 s ± 200 ms), at most 3 attempts in all.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'Transient: a dependency is unavailable or there was too much contention. Retry with backoff (1, 2, 4 s ± 200 ms), at most 3 attempts in all.',
  },
};

export const COMMON_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 429, 500, 503];

/**
 * The shared response components, keyed by name. Not the 400: each operation has its own, with
 * the example of its invalid request (lib/openapi/examples.ts).
 */
export function errorResponses(): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const [status, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    if (status === '400') continue;
    responses[name] = {
      description,
      ...(status === '401' && {
        headers: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
      }),
      ...(status === '409' && {
        headers: {
          'Retry-After': {
            description:
              'Seconds until the request still in progress with this key may be resumed (its first attempt died half-way) or has answered.',
            schema: { type: 'integer' },
          },
        },
      }),
      content: json(ref('Error')),
    };
  }
  return responses;
}
