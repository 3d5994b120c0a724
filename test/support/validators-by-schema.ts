/**
 * The precompiled validator of a request schema found by the schema object, for tests. Functions
 * name their validators statically instead (lambdas/shared/route-check.ts): this lookup holds
 * every compiled schema, which no bundle should carry.
 */
import { compiledSchemas } from '#support/generated/validators-by-schema';
import { validator as precompiled, type Validator } from '#shared/validation';

/** Throws when the schema was not compiled (not a request schema, or a stale generated module). */
export function validator<T>(schema: object, root = 'body'): Validator<T> {
  const compiled = compiledSchemas.get(schema);
  if (compiled === undefined) {
    throw new Error(
      'schema not in test/support/generated/validators-by-schema.ts: a request schema? run npm run openapi',
    );
  }
  return precompiled<T>(compiled, root);
}
