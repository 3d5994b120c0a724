/**
 * JSON Schema validation. Schemas are the one source for validation, for the TypeScript types
 * (json-schema-to-ts) and for the OpenAPI document; ajv compiles them at build time
 * (lambdas/generated/validators.ts, see route-check.ts). Every failure becomes a 400 whose message names
 * the field, e.g. `payments[3].amount must have at most 2 decimal places`, and whose `errors`
 * lists every problem found (docs/decisions.md "errors[]").
 */
import type { ErrorObject } from 'ajv';
import { errorSchema } from '#contract/schemas/common';
import { redactCardNumbers } from './card-number';
import { BadRequestError } from './errors';
import type { CompiledValidate } from './route-check';

/**
 * `/payments/3/amount` → `payments[3].amount`. A key that holds a card number (refused, or on the
 * path of another refusal) is shown redacted: a field name is echoed and logged.
 */
export function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let name = '';
  for (const part of parts) {
    const unescaped = redactCardNumbers(part.replace(/~1/g, '/').replace(/~0/g, '~'));
    name += /^\d+$/.test(unescaped) ? `[${unescaped}]` : name === '' ? unescaped : `.${unescaped}`;
  }
  return name;
}

/**
 * The field a problem is about, by path: the missing or unknown property itself, the key of a
 * propertyNames problem, else the value's path.
 */
function fieldOf(error: ErrorObject, root: string): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const child = params.missingProperty ?? params.additionalProperty ?? error.propertyName;
  return fieldName(error.instancePath, child) || root;
}

export function describe(error: ErrorObject, root: string): string {
  const field = (child?: string) => fieldName(error.instancePath, child ?? error.propertyName) || root;
  const params = error.params as Record<string, unknown>;
  if (error.propertyName !== undefined) {
    // An object key broke the propertyNames rule (freeFormKeys: length, reserved names, card numbers).
    if (error.keyword === 'not') return `${field()} is a reserved name`;
    if (error.keyword === 'noCardNumber')
      return `${field()} is a key that holds a card number; keys must not contain one`;
    if (error.keyword === 'maxLength')
      return `${field()} is a key longer than ${String(params.limit)} characters`;
  }
  switch (error.keyword) {
    case 'required':
      return `${field(String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return root === 'query' && error.instancePath === ''
        ? `query parameter ${redactCardNumbers(String(params.additionalProperty))} is not known`
        : `${field(String(params.additionalProperty))} is not a known field`;
    case 'type':
      return `${field()} must be ${String(params.type).replace(',', ' or ')}`;
    case 'enum':
      return `${field()} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'noCardNumber':
      return `${field()} must not contain a card number (13-19 digits with a card brand's prefix that pass the Luhn check, however they are grouped)`;
    case 'maxDecimals':
      return `${field()} must have at most ${String((error.schema as number | undefined) ?? 2)} decimal places`;
    case 'anyOf':
    case 'oneOf': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return `${field()} ${description ?? 'has an invalid type or value'}`;
    }
    case 'format':
      return `${field()} must be a valid ${String(params.format) === 'date' ? 'date (yyyy-MM-dd)' : String(params.format)}`;
    case 'ianaTimeZone':
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

/** One problem of a refused value: the field by path (`payments[3].amount`) and the sentence. */
export interface Problem {
  field: string;
  message: string;
}

/** Problems listed in one answer at most (the error schema's bound): a 10,000-payment body can hold far more. */
export const MAX_PROBLEMS = errorSchema.properties.errors.maxItems;

/** A 400 for a value that failed its schema: `message` is the first problem, `problems` all of them. */
export class ValidationError extends BadRequestError {
  constructor(readonly problems: readonly Problem[]) {
    super(problems[0]?.message ?? 'the request is invalid');
  }
}

/**
 * ajv's errors as problems. Inside anyOf/oneOf ajv reports each branch's errors first and the
 * alternative itself last: the alternative says what is allowed, so it stands for its branches.
 * A propertyNames failure is reported by its inner error (which names the key).
 */
function problemsOf(errors: readonly ErrorObject[], root: string): Problem[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inBranch = (e: ErrorObject) =>
    alternatives.some((a) => a !== e && e.schemaPath.startsWith(`${a.schemaPath}/`));
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'propertyNames' || inBranch(error)) continue;
    const problem = { field: fieldOf(error, root), message: describe(error, root) };
    if (seen.has(problem.message)) continue;
    seen.add(problem.message);
    problems.push(problem);
    if (problems.length === MAX_PROBLEMS) break;
  }
  return problems;
}

/**
 * A precompiled validator (lambdas/generated/validators.ts) as a function that returns the value typed, or
 * throws a ValidationError (400) naming every offending field. `root` names the whole value in
 * messages ("body", "query").
 */
export function validator<T>(validate: CompiledValidate, root = 'body'): Validator<T> {
  return (value: unknown): T => {
    if (validate(value)) return value as T;
    const problems = problemsOf(validate.errors ?? [], root);
    throw new ValidationError(
      problems.length > 0 ? problems : [{ field: root, message: `${root} is invalid` }],
    );
  };
}
