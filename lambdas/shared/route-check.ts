/**
 * Precompiled validation: ajv compiles the contract's request schemas at build time
 * (scripts/generate-validators.ts, run by `npm run openapi`) into lambdas/generated/validators.ts, so
 * that no function bundles ajv's compiler, nor the route table. That module exports every route
 * as a RouteCheck: a handler imports it as a namespace
 * (`import * as routes from '#generated/validators'`) and names its route statically, so
 * esbuild keeps that route's validators and drops the rest.
 */
import type { ErrorObject } from 'ajv';
import type { Route } from '#contract/routes/index';

/** A validation function written by ajv's standalone code generation. */
export interface CompiledValidate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Carries a route's contract entry in the type only. */
declare const contractEntry: unique symbol;

/**
 * What a handler needs of its route at run time: how to check the request. The contract entry
 * (`R`) is there for the types (body and query types, path parameters), not at run time.
 */
export interface RouteCheck<R extends Route = Route> {
  readonly id: R['id'];
  /**
   * Absent when the route takes no body. `validate` is absent when the body is one of a list of
   * schemas, which the handler tells apart and validates itself.
   */
  readonly body?: { readonly optional: boolean; readonly validate?: CompiledValidate };
  /** The query's validator; a route without a query schema refuses every parameter. */
  readonly query: CompiledValidate;
  /**
   * The route takes the `Idempotency-Key` header (its contract entry's `idempotency`): the records'
   * scope, its `{Name}` placeholders filled from the path; the operation a request is hashed with
   * (an alias: its target); and whether the body's `idempotencyKey` is the same key.
   */
  readonly idempotency?: { readonly scope: string; readonly operation: string; readonly bodyKey: boolean };
  readonly [contractEntry]?: R;
}

/** A route's checks (called by the generated module only). */
export function routeCheck<R extends Route>(
  id: R['id'],
  body: RouteCheck['body'],
  query: CompiledValidate,
  idempotency?: RouteCheck['idempotency'],
): RouteCheck<R> {
  return { id, query, ...(body !== undefined && { body }), ...(idempotency && { idempotency }) };
}
