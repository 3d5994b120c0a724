/**
 * The precompiled validator of a request schema found by the schema object, for tests and
 * scripts. Functions name their validators statically instead (validators.ts): this lookup holds
 * every compiled schema, which no bundle should carry.
 */
import { compiledSchemas } from './validators-by-schema.generated';
import { validator as precompiled, type Validator } from './validation';

/** Throws when the schema was not compiled (not a request schema, or a stale generated module). */
export function validator<T>(schema: object, root = 'body'): Validator<T> {
  const compiled = compiledSchemas.get(schema);
  if (compiled === undefined) {
    throw new Error('schema not in validators-by-schema.generated.ts: a request schema? run npm run openapi');
  }
  return precompiled<T>(compiled, root);
}
