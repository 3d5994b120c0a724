/**
 * Precompiled validators (issue 11) answer exactly as ajv compiling the same schema at run time:
 * the same verdict and the same errors, so 400 messages and `errors[]` stay as they were.
 */
import fc from 'fast-check';
import { compiledSchemas } from '#support/generated/validators-by-schema';
import { compiler } from '../../scripts/generate-validators';

const ajv = compiler();
const schemas = [...compiledSchemas];

/** Values shaped like the schema's objects: its property names with arbitrary values, and extras. */
function shaped(schema: object): fc.Arbitrary<unknown> {
  const names = new Set<string>();
  JSON.stringify(schema, (key, value: unknown) => {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const name of Object.keys(value)) names.add(name);
    }
    return value;
  });
  const leaf = fc.oneof(
    fc.jsonValue(),
    fc.double(),
    fc.constantFrom(
      '2026-02-30',
      '2026-01-01',
      'x@example.org',
      '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e01',
      'a\nb',
    ),
  );
  const record = fc.dictionary(fc.constantFrom(...names, 'extra', '__proto__'), leaf, { maxKeys: 8 });
  return fc.oneof(record, fc.array(record, { maxLength: 3 }), fc.jsonValue());
}

it('compiles every request schema', () => {
  expect(schemas.length).toBeGreaterThan(15);
});

it.each(schemas.map(([schema, validate], i) => [i, schema, validate] as const))(
  'schema %i: the same verdict and errors as ajv compiling it at run time',
  (_i, schema, validate) => {
    const runtime = ajv.compile(schema);
    fc.assert(
      fc.property(shaped(schema), (value) => {
        expect(validate(value)).toBe(runtime(value));
        expect(validate.errors ?? null).toEqual(runtime.errors ?? null);
      }),
      { numRuns: 200 },
    );
  },
);
