/**
 * Writes the OpenAPI document (lib/openapi/) to `openapi.json` at the repository root,
 * formatted with the project's Prettier settings so that `prettier --check .` accepts it.
 *
 *   tsx scripts/openapi.ts [--stage dev|prod] [--server-url URL] [--token-url URL] [--out FILE] [--check]
 *
 * --stage       stage whose scope the document names (default: SERVICE_STAGE, else dev)
 * --server-url  base URL of the API, e.g. the stack output ApiUrl (default: a URL template for the
 *               deployed API, and the local runtime)
 * --token-url   OAuth 2.0 token endpoint, e.g. the stack output TokenUrl (default: the local runtime's)
 * --out         file to write (default: openapi.json at the repository root)
 * --check       write nothing; exit 1 when the file is missing or differs (for CI)
 *
 * Either way the document is first validated with @apidevtools/swagger-parser (the OpenAPI 3.0
 * schema, and every $ref resolved) and linted with `redocly lint` (redocly.yaml: recommended-strict;
 * lib/openapi/lint.ts): an invalid document or a lint problem fails the run. The request
 * validators compiled from the same schemas (scripts/generate-validators.ts) are written, or
 * checked, as well.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { format, resolveConfig } from 'prettier';
import { openApiDocument } from '../lib/openapi/index';
import { lintOpenApi } from '../lib/openapi/lint';
import { parseStage } from '../contract/stage';
import { writeValidators } from './generate-validators';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string' },
      'server-url': { type: 'string' },
      'token-url': { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
  });
  const stage = parseStage(values.stage ?? process.env.SERVICE_STAGE);
  const out = values.out !== undefined ? resolve(values.out) : resolve(__dirname, '..', 'openapi.json');
  const document = openApiDocument(stage, { serverUrl: values['server-url'], tokenUrl: values['token-url'] });
  // The validator dereferences in place: it gets a copy.
  await SwaggerParser.validate(structuredClone(document) as never);
  const options = (await resolveConfig(out)) ?? {};
  const text = await format(JSON.stringify(document), { ...options, filepath: out });
  lintOpenApi(text); // redocly lint, recommended-strict (redocly.yaml)

  if (values.check) {
    const stale = await writeValidators(true);
    if (stale.length > 0) {
      console.error(`${stale.join(', ')} out of date: run npm run openapi`);
      process.exit(1);
    }
    if (!existsSync(out) || readFileSync(out, 'utf8') !== text) {
      console.error(`${out} is out of date: run npm run openapi`);
      process.exit(1);
    }
    console.log(`${out} is up to date`);
    return;
  }
  writeFileSync(out, text);
  await writeValidators(false);
  const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`wrote ${out}: OpenAPI ${document.openapi}, ${operations} operations, stage ${stage}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
