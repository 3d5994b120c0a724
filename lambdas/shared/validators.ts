/**
 * Precompiled validation (issue 11): ajv compiles the contract's request schemas at build time
 * (scripts/generate-validators.ts, run by `npm run openapi`) into validators.generated.ts, so
 * that no function bundles ajv's compiler. That module exports every route as a `ValidatedRoute`:
 * a handler imports it as a namespace (`import * as routes from '#shared/validators.generated'`)
 * and names its route statically, so esbuild keeps that route's validators and drops the rest.
 */
import type { ErrorObject } from 'ajv';
import type { Route } from '#contract/routes/index';

/** A validation function written by ajv's standalone code generation. */
export interface CompiledValidate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** What a route's handler checks its request with: the body (when it has a schema) and the query. */
export interface RouteValidators {
  readonly body?: CompiledValidate;
  readonly query: CompiledValidate;
}

/** A route entry of the contract with its precompiled validators. */
export type ValidatedRoute<R extends Route = Route> = R & { readonly validators: RouteValidators };

/**
 * Pairs a route with its validators (called by the generated module only). The route comes
 * through a function: esbuild keeps a call whose arguments read a property, however pure the call.
 */
export function validatedRoute<const R extends Route>(
  route: () => R,
  body: CompiledValidate | undefined,
  query: CompiledValidate,
): ValidatedRoute<R> {
  return { ...route(), validators: body === undefined ? { query } : { body, query } };
}
