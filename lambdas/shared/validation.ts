/**
 * JSON Schema validation (ajv). Schemas are the one source for validation, for the TypeScript
 * types (json-schema-to-ts) and for the OpenAPI document. Every failure becomes a 400 whose
 * message names the field, e.g. `payments[3].amount must have at most 2 decimal places`.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { hasAtMostDecimals } from '#domain/money';
import { BadRequestError } from './errors';

const ajv = new Ajv({
  allErrors: false,
  strict: true,
  verbose: true, // gives errors their parentSchema, whose `description` words pattern errors
});
addFormats(ajv, ['date', 'date-time', 'uuid', 'email']);
/** `maxDecimals: n`: at most n decimal places (money: 2, a whole number of cents; see isWholeCents). */
ajv.addKeyword({
  keyword: 'maxDecimals',
  type: 'number',
  schemaType: 'number',
  errors: false,
  validate: (decimals: number, value: number) => hasAtMostDecimals(value, decimals),
});

/** `/payments/3/amount` → `payments[3].amount` */
export function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let name = '';
  for (const part of parts) {
    const unescaped = part.replace(/~1/g, '/').replace(/~0/g, '~');
    name += /^\d+$/.test(unescaped) ? `[${unescaped}]` : name === '' ? unescaped : `.${unescaped}`;
  }
  return name;
}

export function describe(error: ErrorObject, root: string): string {
  const field = (child?: string) => fieldName(error.instancePath, child) || root;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field(String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${field(String(params.additionalProperty))} is not a known field`;
    case 'type':
      return `${field()} must be ${String(params.type).replace(',', ' or ')}`;
    case 'enum':
      return `${field()} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'maxDecimals':
      return `${field()} must have at most ${String((error.schema as number | undefined) ?? 2)} decimal places`;
    case 'anyOf':
    case 'oneOf': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return `${field()} ${description ?? 'has an invalid type or value'}`;
    }
    case 'format':
      return `${field()} must be a valid ${String(params.format) === 'date' ? 'date (yyyy-MM-dd)' : String(params.format)}`;
    case 'pattern': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return `${field()} ${description ?? 'has an invalid format'}`;
    }
    default:
      return `${field()} ${error.message ?? 'is invalid'}`;
  }
}

export interface Validator<T> {
  (value: unknown): T;
}

/**
 * Compiles a schema into a function that returns the value typed, or throws a 400 naming the
 * first offending field. `root` names the whole value in messages ("body", "query").
 */
export function validator<T>(schema: object, root = 'body'): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown): T => {
    if (validate(value)) return value as T;
    const errors = validate.errors ?? [];
    // Inside anyOf/oneOf ajv reports each branch's error first and the alternative itself last:
    // the alternative says what is allowed.
    const first = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf') ?? errors[0];
    throw new BadRequestError(first ? describe(first, root) : `${root} is invalid`);
  };
}
