/** Path parameters (declared once in contract/params) and query parameters (the route's query). */
import { pathParamNames, pathParams, type PathParam } from '#contract/params';
import type { Route } from '#contract/routes/index';
import { examplesOf, pathExample } from './examples';
import { toOpenApiSchema } from './translate';
import type { JsonSchema, ParameterObject } from './types';

const declared: ReadonlyMap<string, PathParam> = new Map(Object.entries(pathParams));

function pathParameter(route: Route, name: string): ParameterObject {
  const param = declared.get(name);
  if (!param) throw new Error(`route ${route.id}: path parameter {${name}} is not in contract/params.ts`);
  return {
    name,
    in: 'path',
    required: true,
    description: param.description,
    schema: {
      type: 'string',
      ...(param.format !== undefined && { format: param.format }),
      pattern: param.pattern,
    },
    // The placeholder the operation's examples use, so that parameters and bodies agree.
    example: pathExample(name) ?? param.example,
  };
}

function queryParameters(route: Route): ParameterObject[] {
  if (!route.query) return [];
  const { properties = {}, required = [] } = route.query.schema as {
    properties?: Record<string, JsonSchema>;
    required?: readonly string[];
  };
  const examples = examplesOf(route).query ?? {};
  return Object.entries(properties).map(([name, schema]) => {
    const extra = route.query?.parameters?.[name];
    const example = examples[name];
    return {
      name,
      in: 'query',
      required: required.includes(name),
      ...(extra?.description !== undefined && { description: extra.description }),
      schema: extra?.schema ? { ...extra.schema } : toOpenApiSchema(schema),
      ...(example !== undefined && { example }),
    };
  });
}

/** True when the route takes the `Idempotency-Key` header (its entry declares `idempotency`). */
export const takesKey = (route: Route): boolean =>
  route.idempotency !== undefined && route.idempotency !== 'none';

/** The `Idempotency-Key` header of a keyed POST (docs/decisions.md "Idempotency-Key on every POST"). */
function keyParameter(route: Route): ParameterObject[] {
  if (!takesKey(route)) return [];
  const bodyKey = typeof route.idempotency === 'object' && route.idempotency.bodyKey === true;
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: [
        'Makes the request safe to retry: the same key with the same request within 24 hours answers the first response again (with `Idempotent-Replayed: true`) and does nothing twice; the same key with another request is 422; while the first request with the key is still running, 409 with `Retry-After`. A refused request (4xx) frees its key. Send a new key (a UUID) per request, and the same one on each of its retries. The service keeps a keyed hash of the key, never the key as written; a key that holds a card number is refused (400).',
        bodyKey
          ? "The body's `idempotencyKey` is the same key: send either, or both equal (they differ: 400)."
          : undefined,
      ]
        .filter(Boolean)
        .join(' '),
      schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,100}$' },
      example: '0b7c2f9e-4a51-4f3e-9c55-3f1f4a7e2d10',
    },
  ];
}

/** The parameters of an operation: its path's placeholders in order, then its query's, then its key. */
export const parametersOf = (route: Route): ParameterObject[] => [
  ...pathParamNames(route.path).map((name) => pathParameter(route, name)),
  ...queryParameters(route),
  ...keyParameter(route),
];
