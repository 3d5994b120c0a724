/**
 * Precompiled validators (issue 11) answer exactly as ajv compiling the same schema at run time:
 * the same verdict and the same errors, so 400 messages and `errors[]` stay as they were.
 */
import type { ErrorObject } from 'ajv';
import fc from 'fast-check';
import type { CompiledValidate } from '#shared/route-check';
import { validator, type Problem, type ValidationError } from '#shared/validation';
import { compiledSchemas } from '#support/generated/validators-by-schema';
import { compiledForm, compiler, SHARED_PARTS } from '../../scripts/generate-validators';

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
    const runtime = ajv.compile(compiledForm(schema));
    fc.assert(
      fc.property(shaped(schema), (value) => {
        expect(validate(value)).toBe(runtime(value));
        expect(validate.errors ?? null).toEqual(runtime.errors ?? null);
      }),
      { numRuns: 200 },
    );
  },
);

/**
 * ajv's errors without what a `$ref` changes: their schemaPath, and the parentSchema of an error
 * about the form itself (the form as compiled); no message reads them (lambdas/shared/validation.ts).
 */
const comparable = (errors: readonly ErrorObject[] | null | undefined) =>
  (errors ?? []).map(({ schemaPath: _path, parentSchema: _parent, ...rest }) => rest);

/** The 400's problems (field and message) a validator answers for a value, or none. */
function problemsOf(validate: CompiledValidate, value: unknown): readonly Problem[] {
  try {
    validator(validate)(value);
    return [];
  } catch (error) {
    return (error as ValidationError).problems;
  }
}

const forms = schemas.filter(([schema]) => compiledForm(schema) !== schema);

it('compiles the method forms with a $ref to each shared part (billing address, customer data, mandate)', () => {
  expect(forms).toHaveLength(4);
  for (const [schema] of forms)
    expect(JSON.stringify(compiledForm(schema))).toContain('"$ref":"BillingAddress"');
  expect([...SHARED_PARTS.values()]).toEqual(['BillingAddress', 'CustomerData', 'BankMandate']);
});

it.each(forms.map(([schema], i) => [i, schema] as const))(
  'method form %i: by its $refs, the same verdicts, errors and 400s as the form written out',
  (_i, schema) => {
    // The form as the contract writes it, every part inline (a copy: no part is a known schema).
    const plain = compiler().compile(JSON.parse(JSON.stringify(schema)) as object) as CompiledValidate;
    const compiled = compiledSchemas.get(schema)!;
    fc.assert(
      fc.property(shaped(schema), (value) => {
        expect(compiled(value)).toBe(plain(value));
        expect(comparable(compiled.errors)).toEqual(comparable(plain.errors));
        expect(problemsOf(compiled, value)).toEqual(problemsOf(plain, value));
      }),
      { numRuns: 300 },
    );
  },
);
