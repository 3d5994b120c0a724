/** The API reference page (lib/local/docs.ts) and its static writer (scripts/docs.ts). */
import { createHash } from 'node:crypto';
import { routeList } from '#contract/routes/index';
import { openApiDocument } from '#lib/openapi/index';
import { DOCS_PATH, docsPage, docsRoutes } from '#lib/local/docs';
import { staticDocs, urlsFromOutputs } from '../../scripts/docs';

const inlineScripts = (html: string): string[] =>
  [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
const hashOf = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;

test('no API route lives under /docs, where the local runtime serves the reference', () => {
  const docsRoutePaths = docsRoutes('dev', 'http://127.0.0.1:3000').map(([key]) => key.split(' ')[1]!);
  expect(docsRoutePaths.every((p) => p === DOCS_PATH || p.startsWith(`${DOCS_PATH}/`))).toBe(true);
  expect(routeList.filter((r) => r.path === DOCS_PATH || r.path.startsWith(`${DOCS_PATH}/`))).toEqual([]);
});

test('text in the document cannot end its script element; the policy allows exactly the inline scripts', () => {
  const document = openApiDocument('dev');
  document.info.description = 'a </script><script>alert(1)</script> <!-- x';
  const { html, contentSecurityPolicy } = docsPage(document, { inline: 'var a = "</script>"; /<!--/;' });

  expect(html.match(/<\/script>/g)).toHaveLength(3);
  const block = /<script type="application\/json" id="openapi-document">(.*?)<\/script>/s.exec(html)![1]!;
  expect(JSON.parse(block)).toEqual(document);
  const scripts = inlineScripts(html);
  expect(scripts).toHaveLength(2);
  for (const code of scripts) expect(contentSecurityPolicy).toContain(hashOf(code));
  expect(contentSecurityPolicy).not.toContain("'self'");
  expect(html).toContain(`content="${contentSecurityPolicy}"`);
});

test('the runtime page loads Redoc from its own origin and names the runtime as the server', () => {
  const { html, contentSecurityPolicy } = docsPage(
    openApiDocument('dev', { serverUrl: 'http://127.0.0.1:4321' }),
    { src: '/docs/redoc.standalone.js' },
  );
  expect(html).toContain('<script src="/docs/redoc.standalone.js"></script>');
  expect(html).toContain('"servers":[{"url":"http://127.0.0.1:4321"');
  expect(contentSecurityPolicy).toMatch(/script-src 'self' 'sha256-/);
});

test('the static page of a stage: Redoc and the document inline, URLs from the CDK outputs', () => {
  const outputs = JSON.stringify({
    'ScheduledPayments-prod': {
      ApiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/',
      TokenUrl: 'https://auth.example.org/oauth2/token',
    },
  });
  const urls = urlsFromOutputs(outputs, 'ScheduledPayments-prod');
  expect(urls).toEqual({
    serverUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    tokenUrl: 'https://auth.example.org/oauth2/token',
  });
  const html = staticDocs(openApiDocument('prod', urls));
  expect(html).not.toMatch(/<script[^>]*\ssrc=/);
  expect(html).toContain('"servers":[{"url":"https://abc123.execute-api.eu-west-1.amazonaws.com/prod"');
  expect(html).toContain('https://api.scheduled-payments.example/api.execute');
  expect(inlineScripts(html).some((code) => code.includes('Redoc'))).toBe(true);

  expect(() => urlsFromOutputs(outputs, 'ScheduledPayments-dev')).toThrow(/no stack ScheduledPayments-dev/);
  expect(() => urlsFromOutputs('{"S": {"ApiUrl": "https://x"}}', 'S')).toThrow(/no output TokenUrl/);
});
