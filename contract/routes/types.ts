/**
 * What a route declares about itself: the CDK REST API, the local HTTP server, the handlers
 * (`merchantRoute(routes.X, ...)`) and the OpenAPI document all read the same entry.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Error statuses an operation may answer besides those of every operation. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 422 | 429 | 500 | 503;

/** An OpenAPI 3.0 Schema Object written by hand (shown instead of a validator's schema). */
type DocSchema = { readonly [keyword: string]: unknown };

export interface RouteBody {
  /**
   * The JSON Schema the body is validated with. A list: the body is one of them, and the handler
   * picks and validates the member in code (it receives the parsed JSON as `unknown`).
   */
  readonly schema: object;
  /** The body may be left out: the handler then receives `undefined`. @default false */
  readonly optional?: boolean;
  readonly description?: string;
  /**
   * Properties the schema lets through as any object and the handler validates in code against
   * these schemas (one of them): documented as that oneOf.
   */
  readonly validatedInCode?: { readonly [property: string]: readonly object[] };
}

export interface RouteQuery {
  /** The schema the query parameters are validated with (one property per parameter). */
  readonly schema: object;
  /**
   * Per parameter: words, and the schema to show instead of the validator's (query values arrive
   * as strings matched by a pattern; the range is checked in code).
   */
  readonly parameters?: {
    readonly [name: string]: { readonly description?: string; readonly schema?: DocSchema };
  };
}

/**
 * How a POST takes the `Idempotency-Key` header (docs/decisions.md "Idempotency-Key on every POST";
 * docs/architecture.md "Adding an endpoint"). The route builder (lambdas/shared/http.ts) claims
 * the key once the request is authorized and valid, runs the handler once per key, keeps its
 * answer for 24 hours and replays it with `Idempotent-Replayed: true`; the same key with another
 * request is 422, a request with the key still running 409 (with `Retry-After`).
 */
export interface RouteIdempotency {
  /**
   * The records' scope inside the merchant; `{Name}` stands for that path parameter. A key is one
   * request within its scope: the same key in another scope is another key.
   * @default `request`: one scope for every such operation, the operation (an alias: its target),
   * the path parameters and the body making the request, so that a key reused on another operation
   * or path is 422
   */
  readonly scope?: string;
  /**
   * The body's optional `idempotencyKey` is the same key (sales, refunds and group creates took it
   * before the header existed): either names the key, both must agree, and a key given only in
   * the body keeps its documented answer to another body (409).
   */
  readonly bodyKey?: true;
}

/** The usual declaration: the key in the header, records of the operation's own scope. */
export const IDEMPOTENT: RouteIdempotency = {};

export interface Route {
  /** Stable id, used for construct ids and OpenAPI operationIds. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway resource path; its `{Name}` placeholders are path parameters (contract/params). */
  readonly path: string;
  /** Handler module under `lambdas/`, e.g. `groups/create-group`, exporting `handler`. */
  readonly handler: string;
  /** Success status. */
  readonly status: 200 | 201 | 202 | 204;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  /** What the operation does, with the rules an integrator needs. */
  readonly description: string;
  readonly body?: RouteBody;
  readonly query?: RouteQuery;
  /** The success body (a JSON Schema of contract/schemas); absent exactly when status is 204. */
  readonly response?: { readonly schema: object; readonly description: string };
  /**
   * The success answer is also offered as `text/csv` (asked for with `Accept: text/csv`): the
   * document lists that content beside the JSON, with the `Link` header of its next page.
   */
  readonly csv?: { readonly description: string };
  /**
   * The success answer is also offered as an .xlsx workbook (asked for with the spreadsheet media
   * type first in `Accept`: contract/media-types.ts), paged as the CSV is.
   */
  readonly spreadsheet?: { readonly description: string };
  /**
   * The JSON success answer may be one page of several, the next named only by a `Link` header
   * (`rel="next"`): the document declares the header with this description.
   */
  readonly link?: { readonly description: string };
  /** A 202 the operation answers instead when its work continues in the background. */
  readonly accepted?: { readonly schema: object; readonly description: string };
  /** The operation's own 409 body (listed in `errors`), instead of the shared `Error`. */
  readonly conflict?: { readonly schema: object; readonly description: string };
  /**
   * Error statuses besides those of every operation (400, 401, 403, 429, 500, 503; 404 when the
   * path names a resource below the merchant).
   */
  readonly errors?: readonly ErrorStatus[];
  /**
   * The handler may call the payment processor (charge, void, refund, settle or tokenize; its
   * imports reach lambdas/processor/): CDK gives it the processor's settings and grants, and only it.
   */
  readonly callsProcessor?: true;
  /** Non-production only: the handler answers 403 when SERVICE_STAGE is prod. */
  readonly nonProdOnly?: boolean;
  /** Id of the route this one is an identical alias of (same handler and method, another path). */
  readonly aliasOf?: string;
  /**
   * Every POST declares it: how it takes the `Idempotency-Key` header, or `'none'` for a POST that
   * changes nothing (a search sent by POST). test/unit/idempotency-routes.test.ts fails a POST
   * without it, and a creating (201) or money-moving (callsProcessor) POST declared `'none'`.
   */
  readonly idempotency?: RouteIdempotency | 'none';
}

/** The query schema of a route that takes no query parameters: any name is refused (400). */
export const NO_QUERY = {
  schema: { type: 'object', additionalProperties: false, properties: {} },
} as const;

/** A route as declared, with NO_QUERY when it declares no query. */
type Declared<R extends Route> = R extends { query: RouteQuery } ? R : R & { query: typeof NO_QUERY };

/**
 * Declares a route keeping its literal types (path template, schemas) for the handler's types.
 * Every route gets a query schema: unknown query names are 400 on every operation.
 */
export const route = <const R extends Route>(entry: R): Declared<R> =>
  (entry.query ? entry : { ...entry, query: NO_QUERY }) as Declared<R>;
