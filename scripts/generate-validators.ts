/**
 * Writes lambdas/generated/validators.ts: the contract's request schemas compiled by ajv's
 * standalone code generation, so that functions validate without bundling ajv's compiler (issue
 * 11: ~130 KB of every bundle). `npm run openapi` runs it beside the OpenAPI document, and
 * `npm run openapi -- --check` fails when the module is stale.
 *
 *   tsx scripts/generate-validators.ts [--check]
 *
 * The module exports every route as a RouteCheck (lambdas/shared/route-check.ts) and the schemas
 * validated in handler code (`validateCardMethod`, ...); it imports the contract for types only, and each
 * export is free of side effects, so a bundle keeps only what it names. A second module,
 * test/support/generated/validators-by-schema.ts, maps every request schema object to its validator:
 * only tests look validators up by schema, so it lives with them, outside the functions' code. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Ajv, { _, type KeywordCxt } from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { strConcat } from 'ajv/dist/compile/codegen';
import N from 'ajv/dist/compile/names';
import { NO_QUERY, routes, type Route } from '../contract/routes/index';
import { requestComponents } from '../contract/schemas/index';
import { accountTypeSchema, cardMethodSchema, checkingMethodSchema } from '../contract/schemas/payors';
import { cardNumberRefused, containsCardNumber } from '../lambdas/shared/card-number';
import { hasAtMostDecimals } from '../lambdas/shared/decimals';
import { isIanaTimeZone } from '../lambdas/shared/time-zones';
import { formats } from '../lambdas/shared/formats';

export const VALIDATORS_FILE = join(__dirname, '..', 'lambdas', 'generated', 'validators.ts');
export const BY_SCHEMA_FILE = join(
  __dirname,
  '..',
  'test',
  'support',
  'generated',
  'validators-by-schema.ts',
);

/**
 * Schemas handler code validates itself (lambdas/domain/payors.ts), by export name; the
 * expression is how the generated module reaches the schema object.
 */
const CODE_VALIDATED = {
  validateAccountType: { schema: accountTypeSchema, expression: 'accountTypeSchema' },
  validateCardMethod: { schema: cardMethodSchema, expression: 'cardMethodSchema' },
  validateCheckingMethod: { schema: checkingMethodSchema, expression: 'checkingMethodSchema' },
} as const;

/** The compiler, with the options the service validated with when it compiled at run time. */
export function compiler(): Ajv {
  const ajv = new Ajv({
    allErrors: true, // every problem in one answer, not one per round trip
    strict: true,
    verbose: true, // gives errors their parentSchema, whose `description` words pattern errors
    code: { source: true, esm: true },
  });
  // uuid and email are regular expressions, written into the generated code; date and date-time
  // are functions, referenced as require("#shared/formats").formats.<name> (ajv-formats' own,
  // without the rest of its module: lambdas/shared/formats.ts).
  addFormats(ajv, ['uuid', 'email']);
  ajv.opts.code.formats = _`require("#shared/formats").formats`;
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  // `maxDecimals: n`: at most n decimal places in the number's shortest JSON form (money: 2).
  ajv.addKeyword({
    keyword: 'maxDecimals',
    type: 'number',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      const fn = cxt.gen.scopeValue('func', {
        ref: hasAtMostDecimals,
        code: _`require("#shared/decimals").hasAtMostDecimals`,
      });
      cxt.fail(_`!${fn}(${cxt.data}, ${cxt.schema})`);
    },
  });
  // `ianaTimeZone: true`: a time zone the runtime's zone data knows (series' timeZone).
  ajv.addKeyword({
    keyword: 'ianaTimeZone',
    type: 'string',
    schemaType: 'boolean',
    code(cxt: KeywordCxt) {
      const fn = cxt.gen.scopeValue('func', {
        ref: isIanaTimeZone,
        code: _`require("#shared/time-zones").isIanaTimeZone`,
      });
      cxt.fail(_`${cxt.schema} && !${fn}(${cxt.data})`);
    },
  });
  // `noCardNumber: true`: a value (a string, or a number by its decimal text) or, under
  // `propertyNames`, a key holds no full card number (lambdas/shared/card-number.ts).
  ajv.addKeyword({
    keyword: 'noCardNumber',
    // Any type (the function passes what is neither a string nor a number): one check where the
    // keyword is, not one per type ajv would branch on.
    schemaType: 'boolean',
    // Its refusal is built by one shared function (`cardNumberRefused`), not written out where
    // each of the ~200 free-text fields is checked as ajv writes errors (about 350 bytes each):
    // the bundles of the largest routes stay within their budget (scripts/check-bundles.ts).
    code(cxt: KeywordCxt) {
      const { gen, it } = cxt;
      const contains = gen.scopeValue('func', {
        ref: containsCardNumber,
        code: _`require("#shared/card-number").containsCardNumber`,
      });
      const refused = gen.scopeValue('func', {
        ref: cardNumberRefused,
        code: _`require("#shared/card-number").cardNumberRefused`,
      });
      gen.if(_`${cxt.schema} && ${contains}(${cxt.data})`, () => {
        // Under propertyNames the key refused is passed on (as ajv's own errors carry it).
        const key = it.propertyName === undefined ? _`` : _`, ${it.propertyName}`;
        gen.assign(
          N.vErrors,
          _`${refused}(${N.vErrors}, ${strConcat(N.instancePath, it.errorPath)}, ${it.errSchemaPath + '/noCardNumber'}${key})`,
        );
        gen.code(_`${N.errors}++`);
      });
    },
  });
  return ajv;
}

/** The route table by id, each entry as the general Route. */
const routeEntries = (): [string, Route][] => Object.entries(routes);

/**
 * What the route builder needs of a route's `idempotency` declaration at run time: the scope (by
 * default `request`, one for every operation of the merchant, so that a key reused on another
 * operation is another request: 422), the operation the request names (an alias its target), and
 * whether the body's idempotencyKey is the same key. Undefined for a route that takes no key.
 */
export function idempotencyOf(
  route: Route,
): { scope: string; operation: string; bodyKey: boolean } | undefined {
  const declared = route.idempotency;
  if (declared === undefined || declared === 'none') return undefined;
  return {
    scope: declared.scope ?? 'request',
    operation: route.aliasOf ?? route.id,
    bodyKey: declared.bodyKey === true,
  };
}

/** Every schema to compile, once each, with the expression that reaches it from the generated module. */
function schemaExpressions(): Map<object, string> {
  const found = new Map<object, string>();
  const add = (schema: object, expression: string): void => {
    if (!found.has(schema)) found.set(schema, expression);
  };
  add(NO_QUERY.schema, 'NO_QUERY.schema');
  for (const [id, route] of routeEntries()) {
    const body = route.body;
    if (body && !Array.isArray(body.schema)) add(body.schema, `routes.${id}.body.schema`);
    if (body?.validatedInCode) {
      for (const [property, list] of Object.entries(body.validatedInCode)) {
        list.forEach((s: object, i: number) => add(s, `routes.${id}.body.validatedInCode.${property}[${i}]`));
      }
    }
    if (route.query) add(route.query.schema, `routes.${id}.query.schema`);
  }
  for (const { schema, expression } of Object.values(CODE_VALIDATED)) add(schema, expression);
  for (const [name, schema] of requestComponents) {
    const key = JSON.stringify(name);
    if (Array.isArray(schema))
      schema.forEach((s: object, i) => add(s, `requestComponents.get(${key})[${i}]`));
    else add(schema, `requestComponents.get(${key})`);
  }
  return found;
}

/** The two generated modules' texts by path, formatted as Prettier formats them. */
export async function generateValidators(): Promise<Map<string, string>> {
  const ajv = compiler();
  const schemas = [...schemaExpressions()];
  const keys = new Map(schemas.map(([schema], i) => [schema, `s${i}`]));
  schemas.forEach(([schema], i) => ajv.addSchema(schema, `s${i}`));
  // ajv exports each validator under its key; the module names them by route and name below.
  const code = standaloneCode(ajv, Object.fromEntries([...keys.values()].map((k) => [k, k]))).replace(
    /^"use strict";/,
    '',
  );
  const key = (schema: object): string => keys.get(schema) ?? 'undefined';

  // Every route, so that a handler can take any: without a query schema its query is NO_QUERY's.
  const routeExports = routeEntries().map(([id, route]) => {
    const body = route.body
      ? `{ optional: ${String(route.body.optional ?? false)}${Array.isArray(route.body.schema) ? '' : `, validate: ${key(route.body.schema)}`} }`
      : 'undefined';
    const query = key((route.query ?? NO_QUERY).schema);
    const keyed = idempotencyOf(route);
    const idempotency = keyed ? `, ${JSON.stringify(keyed)}` : '';
    return `export const ${id} = /* @__PURE__ */ routeCheck<typeof routes.${id}>(${JSON.stringify(id)}, ${body}, ${query}${idempotency});`;
  });
  // One export each (not an object), so that an unused one is dropped with its validator.
  const named = Object.entries(CODE_VALIDATED).map(
    ([name, { schema }]) => `export const ${name}: CompiledValidate = ${key(schema)};`,
  );
  const bySchema = schemas.map(([schema, expression]) => `[${expression}, compiled.${key(schema)}]`);
  const header = [
    '// Generated by scripts/generate-validators.ts from contract/ (npm run openapi); do not edit.',
    '/* eslint-disable */',
    '// @ts-nocheck',
  ];

  const validators = [
    ...header,
    '// ajv standalone code: see lambdas/shared/route-check.ts.',
    "import type { routes } from '#contract/routes/index';",
    "import { routeCheck, type CompiledValidate } from '#shared/route-check';",
    code,
    '',
    ...routeExports,
    '',
    '// Schemas validated in handler code, by name.',
    ...named,
    '',
  ];
  const bySchemaModule = [
    ...header,
    '// Every compiled schema by its object, for tests (test/support/validators-by-schema.ts).',
    "import { NO_QUERY, routes } from '#contract/routes/index';",
    "import { requestComponents } from '#contract/schemas/index';",
    `import { ${Object.values(CODE_VALIDATED)
      .map((v) => v.expression)
      .join(', ')} } from '#contract/schemas/payors';`,
    "import type { CompiledValidate } from '#shared/route-check';",
    "import * as compiled from '#generated/validators';",
    '',
    `export const compiledSchemas: ReadonlyMap<object, CompiledValidate> = new Map<object, CompiledValidate>([${bySchema.join(', ')}]);`,
    '',
  ];
  // Loaded here, so that the equivalence test can import compiler() under Jest (no ESM loader).
  const { format, resolveConfig } = await import('prettier');
  const texts = new Map<string, string>();
  for (const [file, lines] of [
    [VALIDATORS_FILE, validators],
    [BY_SCHEMA_FILE, bySchemaModule],
  ] as const) {
    const options = (await resolveConfig(file)) ?? {};
    texts.set(file, await format(lines.join('\n'), { ...options, filepath: file }));
  }
  return texts;
}

/** Writes the modules, or with `check` only compares: the paths of those that are stale. */
export async function writeValidators(check: boolean): Promise<string[]> {
  const stale: string[] = [];
  for (const [file, text] of await generateValidators()) {
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    stale.push(file);
    if (!check) writeFileSync(file, text);
  }
  return check ? stale : [];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const stale = await writeValidators(values.check);
  if (stale.length > 0) {
    console.error(`out of date: ${stale.join(', ')}: run npm run openapi`);
    process.exit(1);
  }
  console.log(`${VALIDATORS_FILE} and ${BY_SCHEMA_FILE} ${values.check ? 'are up to date' : 'written'}`);
}

if (require.main === module) void main();
