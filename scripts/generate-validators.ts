/**
 * Writes lambdas/shared/validators.generated.ts: the contract's request schemas compiled by ajv's
 * standalone code generation, so that functions validate without bundling ajv's compiler (issue
 * 11: ~130 KB of every bundle). `npm run openapi` runs it beside the OpenAPI document, and
 * `npm run openapi -- --check` fails when the module is stale.
 *
 *   tsx scripts/generate-validators.ts [--check]
 *
 * The module exports each route with a body or query as a ValidatedRoute (lambdas/shared/validators.ts),
 * the schemas validated in handler code (`codeValidated`), and every request schema by object
 * (`compiledSchemas`, for tests). Each export is free of side effects (a route is reached through
 * a function: esbuild keeps any property read), so a bundle keeps only what it names.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Ajv, { _, type KeywordCxt } from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone';
import { NO_QUERY, routes, type Route } from '../contract/routes/index';
import { requestComponents } from '../contract/schemas/index';
import { accountTypeSchema, cardMethodSchema, checkingMethodSchema } from '../contract/schemas/payors';
import { hasAtMostDecimals } from '../lambdas/domain/money';

export const VALIDATORS_FILE = join(__dirname, '..', 'lambdas', 'shared', 'validators.generated.ts');

/**
 * Schemas handler code validates itself (lambdas/domain/payors.ts), by export name; the
 * expression is how the generated module reaches the schema object.
 */
const CODE_VALIDATED = {
  accountType: { schema: accountTypeSchema, expression: 'accountTypeSchema' },
  cardMethod: { schema: cardMethodSchema, expression: 'cardMethodSchema' },
  checkingMethod: { schema: checkingMethodSchema, expression: 'checkingMethodSchema' },
} as const;

/** The compiler, with the options the service validated with when it compiled at run time. */
export function compiler(): Ajv {
  const ajv = new Ajv({
    allErrors: true, // every problem in one answer, not one per round trip
    strict: true,
    verbose: true, // gives errors their parentSchema, whose `description` words pattern errors
    code: { source: true, esm: true },
  });
  // Referenced from the generated code as require("ajv-formats/dist/formats").fullFormats.<name>.
  addFormats(ajv, ['date', 'date-time', 'uuid', 'email']);
  // `maxDecimals: n`: at most n decimal places in the number's shortest JSON form (money: 2).
  ajv.addKeyword({
    keyword: 'maxDecimals',
    type: 'number',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      const fn = cxt.gen.scopeValue('func', {
        ref: hasAtMostDecimals,
        code: _`require("../domain/money").hasAtMostDecimals`,
      });
      cxt.fail(_`!${fn}(${cxt.data}, ${cxt.schema})`);
    },
  });
  return ajv;
}

/** The route table by id, each entry as the general Route. */
const routeEntries = (): [string, Route][] => Object.entries(routes);

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

/** The generated module's text, formatted as Prettier formats it. */
export async function generateValidators(): Promise<string> {
  const ajv = compiler();
  const schemas = [...schemaExpressions()];
  const keys = new Map(schemas.map(([schema], i) => [schema, `s${i}`]));
  schemas.forEach(([schema], i) => ajv.addSchema(schema, `s${i}`));
  // Exported under the keys by ajv; the module re-exports them by route and name below.
  const code = standaloneCode(ajv, Object.fromEntries([...keys.values()].map((k) => [k, k])))
    .replace(/^"use strict";/, '')
    .replace(/export const (s\d+) = /g, 'const $1 = ');
  const key = (schema: object): string => keys.get(schema) ?? 'undefined';

  // Every route, so that a handler can take any: without a query schema its query is NO_QUERY's.
  const routeExports = routeEntries().map(([id, route]) => {
    const body = route.body && !Array.isArray(route.body.schema) ? key(route.body.schema) : 'undefined';
    const query = key((route.query ?? NO_QUERY).schema);
    return `export const ${id} = /* @__PURE__ */ validatedRoute(() => routes.${id}, ${body}, ${query});`;
  });
  const named = Object.entries(CODE_VALIDATED).map(([name, { schema }]) => `${name}: ${key(schema)}`);
  const bySchema = schemas.map(([schema, expression]) => `[${expression}, ${key(schema)}]`);

  const text = [
    '// Generated by scripts/generate-validators.ts from contract/ (npm run openapi); do not edit.',
    '// ajv standalone code: see lambdas/shared/validators.ts.',
    '/* eslint-disable */',
    '// @ts-nocheck',
    "import { NO_QUERY, routes } from '#contract/routes/index';",
    "import { requestComponents } from '#contract/schemas/index';",
    `import { ${Object.values(CODE_VALIDATED)
      .map((v) => v.expression)
      .join(', ')} } from '#contract/schemas/payors';`,
    "import { validatedRoute, type CompiledValidate } from './validators';",
    code,
    '',
    ...routeExports,
    '',
    '/** Schemas validated in handler code, by name. */',
    `export const codeValidated: Readonly<Record<${Object.keys(CODE_VALIDATED)
      .map((n) => JSON.stringify(n))
      .join(' | ')}, CompiledValidate>> = /* @__PURE__ */ Object.freeze({ ${named.join(', ')} });`,
    '',
    '/** Every compiled schema by its object (tests); a function, so that no bundle keeps it unasked. */',
    `export const compiledSchemas = (): ReadonlyMap<object, CompiledValidate> => new Map<object, CompiledValidate>([${bySchema.join(', ')}]);`,
    '',
  ].join('\n');
  // Loaded here, so that the equivalence test can import compiler() under Jest (no ESM loader).
  const { format, resolveConfig } = await import('prettier');
  const options = (await resolveConfig(VALIDATORS_FILE)) ?? {};
  return format(text, { ...options, filepath: VALIDATORS_FILE });
}

/** Writes the module, or with `check` only compares: true when the file is current. */
export async function writeValidators(check: boolean): Promise<boolean> {
  const text = await generateValidators();
  if (check) return existsSync(VALIDATORS_FILE) && readFileSync(VALIDATORS_FILE, 'utf8') === text;
  writeFileSync(VALIDATORS_FILE, text);
  return true;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  if (!(await writeValidators(values.check))) {
    console.error(`${VALIDATORS_FILE} is out of date: run npm run openapi`);
    process.exit(1);
  }
  console.log(`${VALIDATORS_FILE} ${values.check ? 'is up to date' : 'written'}`);
}

if (require.main === module) void main();
