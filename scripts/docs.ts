/**
 * Writes the API reference of a stage as one self-contained HTML file (Redoc and the OpenAPI
 * document inline, nothing fetched when opened), to publish next to a deployed stage. The page is
 * the one the local runtime serves at /docs (lib/local/docs.ts).
 *
 *   tsx scripts/docs.ts [--stage dev|prod] [--outputs FILE [--stack NAME]] [--server-url URL]
 *                       [--token-url URL] [--out FILE]
 *
 * --stage       stage whose document it shows (default: SERVICE_STAGE, else dev)
 * --outputs     the file `cdk deploy --outputs-file` wrote: the server and token URLs are the
 *               stack's outputs ApiUrl and TokenUrl
 * --stack       the stack in that file (default: ScheduledPayments-<stage>)
 * --server-url  base URL of the API (instead of, or over, --outputs)
 * --token-url   OAuth 2.0 token endpoint (instead of, or over, --outputs)
 * --out         file to write (default: api-docs.html)
 *
 * Without URLs the document names the deployed API as a URL template and the local runtime, as
 * `npm run openapi` does. The document is validated as `npm run openapi` validates it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openApiDocument, type OpenApiDocument, type OpenApiOptions } from '../lib/openapi/index';
import { docsPage, redocBundle } from '../lib/local/docs';
import { parseStage } from '../contract/stage';

/** The server and token URLs of `stack` in a CDK outputs file (`{stack: {ApiUrl, TokenUrl, ...}}`). */
export function urlsFromOutputs(text: string, stack: string): Required<OpenApiOptions> {
  const all = JSON.parse(text) as Record<string, Record<string, unknown> | undefined>;
  const outputs = all[stack];
  if (outputs === undefined) throw new Error(`the outputs file has no stack ${stack}`);
  const output = (key: string): string => {
    const value = outputs[key];
    if (typeof value !== 'string' || value === '') throw new Error(`stack ${stack} has no output ${key}`);
    return value;
  };
  // ApiUrl ends with the stage and a slash; the document's server URL has no trailing slash.
  return { serverUrl: output('ApiUrl').replace(/\/+$/, ''), tokenUrl: output('TokenUrl') };
}

/** The static page of `document`: Redoc and the document inline. */
export const staticDocs = (document: OpenApiDocument): string =>
  docsPage(document, { inline: redocBundle() }).html;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string' },
      outputs: { type: 'string' },
      stack: { type: 'string' },
      'server-url': { type: 'string' },
      'token-url': { type: 'string' },
      out: { type: 'string', default: 'api-docs.html' },
    },
  });
  const stage = parseStage(values.stage ?? process.env.SERVICE_STAGE);
  const fromOutputs: OpenApiOptions =
    values.outputs === undefined
      ? {}
      : urlsFromOutputs(readFileSync(values.outputs, 'utf8'), values.stack ?? `ScheduledPayments-${stage}`);
  const document = openApiDocument(stage, {
    serverUrl: values['server-url'] ?? fromOutputs.serverUrl,
    tokenUrl: values['token-url'] ?? fromOutputs.tokenUrl,
  });
  // As scripts/openapi.ts validates it; an ES module, loaded here only (Jest tests the rest). The
  // validator dereferences in place: it gets a copy.
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  await SwaggerParser.validate(structuredClone(document) as never);
  const html = staticDocs(document);
  const out = resolve(values.out);
  writeFileSync(out, html);
  console.log(`wrote ${out}: API reference of stage ${stage} (${Math.round(html.length / 1024)} KiB)`);
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
