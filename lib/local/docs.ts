/**
 * The rendered API reference: one HTML page that shows the stage's OpenAPI document with Redoc
 * (npm `redoc`, its standalone bundle), nothing fetched from a CDN.
 *
 * - The local runtime serves it at `GET /docs` (no token, like the other local-only routes), the
 *   Redoc bundle at `GET /docs/redoc.standalone.js` and the document at `GET /docs/openapi.json`;
 *   the document names the running runtime as its server.
 * - `npm run docs` (scripts/docs.ts) writes the same page as one self-contained file, bundle
 *   inline, for a deployed stage.
 *
 * The document is inline in both (a JSON data block Redoc is handed at start), so the page needs no
 * request to render. Its Content-Security-Policy allows exactly the page's scripts (by hash, and
 * the runtime's own origin for the bundle), inline styles (Redoc's styled-components writes
 * `<style>` elements) and Redoc's search worker, which it starts from a blob: URL.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openApiDocument, type OpenApiDocument } from '../openapi/index';
import type { Stage } from '../../contract/stage';
import type { LocalRoute } from './http-server';

/** The local paths; no API route lives under `/docs` (test/unit/docs-page-html.test.ts). */
export const DOCS_PATH = '/docs';
const REDOC_PATH = `${DOCS_PATH}/redoc.standalone.js`;
const DOCS_DOCUMENT_PATH = `${DOCS_PATH}/openapi.json`;

/**
 * Where the page's data block and Redoc's mount point are; the start script reads both. The request
 * payload's tab comes after the operation's code samples (curl, TypeScript: lib/openapi/code-samples.ts),
 * so that each operation opens on how to call it.
 */
const START_SCRIPT =
  "Redoc.init(JSON.parse(document.getElementById('openapi-document').textContent), " +
  "{ expandResponses: '200,201', payloadSampleIdx: 2 }, document.getElementById('redoc'));";

/** The Redoc bundle: inline (a static file) or a URL on the page's own origin (the runtime). */
type RedocSource = { inline: string } | { src: string };

interface DocsPage {
  html: string;
  /** The policy the page carries in its `<meta>`; the runtime also sends it as a header. */
  contentSecurityPolicy: string;
}

export const redocBundle = (): string =>
  readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * JSON inside `<script>` ends at the first `</script`: `<` only occurs in JSON strings, where
 * `\u003c` means the same.
 */
const jsonInScript = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Script text inside `<script>`: `</script` would end the element and `<!--` can change how the
 * parser finds its end. In minified code both occur only in string and regex literals, where
 * `<\/` and `\x3C` mean the same characters.
 */
const scriptInScript = (code: string): string =>
  code.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '\\x3C!--');

/** The page for `document`: its HTML and the Content-Security-Policy that fits it. */
export function docsPage(document: OpenApiDocument, redoc: RedocSource): DocsPage {
  const inlineRedoc = 'inline' in redoc ? scriptInScript(redoc.inline) : undefined;
  const scriptSources = [inlineRedoc === undefined ? "'self'" : sha256(inlineRedoc), sha256(START_SCRIPT)];
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${scriptSources.join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const redocTag =
    inlineRedoc === undefined
      ? `<script src="${escapeHtml('src' in redoc ? redoc.src : '')}"></script>`
      : `<script>${inlineRedoc}</script>`;
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy)}" />
    <title>${escapeHtml(`${document.info.title} API reference`)}</title>
  </head>
  <body>
    <div id="redoc"></div>
    <script type="application/json" id="openapi-document">${jsonInScript(document)}</script>
    ${redocTag}
    <script>${START_SCRIPT}</script>
  </body>
</html>
`;
  return { html, contentSecurityPolicy };
}

/** What a value of `make` is, made at the first call and kept. */
const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

/**
 * `GET /docs`, the bundle and the document of `stage`, naming the runtime at `baseUrl`. Each is
 * made at its first request, not at the runtime's start: the document's generation and the Redoc
 * bundle's read were a tenth of a start's CPU, and most runtimes (the tests', restarted ones) never
 * serve the page.
 */
export function docsRoutes(stage: Stage, baseUrl: string): [string, LocalRoute][] {
  const document = once(() =>
    openApiDocument(stage, { serverUrl: baseUrl, tokenUrl: `${baseUrl}/oauth2/token` }),
  );
  const page = once(() => docsPage(document(), { src: REDOC_PATH }));
  const bundle = once(redocBundle);
  const common = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };
  const html: LocalRoute = async () => ({
    status: 200,
    body: page().html,
    headers: {
      ...common,
      'content-type': 'text/html; charset=utf-8',
      // frame-ancestors works only as a header, not in the page's <meta>.
      'content-security-policy': `${page().contentSecurityPolicy}; frame-ancestors 'none'`,
    },
  });
  const script: LocalRoute = async () => ({
    status: 200,
    body: bundle(),
    headers: { ...common, 'content-type': 'text/javascript; charset=utf-8' },
  });
  const json: LocalRoute = async () => ({ status: 200, body: document(), headers: common });
  return [
    [`GET ${DOCS_PATH}`, html],
    [`GET ${REDOC_PATH}`, script],
    [`GET ${DOCS_DOCUMENT_PATH}`, json],
  ];
}

/** `GET /`: where a person who opens the runtime's address lands (a browser follows the redirect). */
export function rootRoute(baseUrl: string): [string, LocalRoute] {
  const docs = `${baseUrl}${DOCS_PATH}`;
  return [
    'GET /',
    async () => ({
      status: 302,
      body: { message: `the Scheduled Payments API; its reference: ${docs}`, docs },
      headers: { location: DOCS_PATH, 'cache-control': 'no-cache' },
    }),
  ];
}
