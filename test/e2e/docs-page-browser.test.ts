/**
 * The API reference in a real browser: Chromium (Debian's `chromium`, driven by playwright-core)
 * renders the runtime's /docs and the static page `npm run docs` writes, finds every operation of
 * openapi.json on each with its curl and TypeScript samples (the deprecated aliases out of the
 * menu), sees no request leave the machine, and follows the runtime's `GET /` to the page. Screenshots: test/artifacts/.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { baseUrl, TESTER } from '#support/api';

const ROOT = resolve(__dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test', 'artifacts');
const run = promisify(execFile);

const INSTALL_HINT =
  "install Debian's chromium (sudo apt-get install -y chromium; .ci/run does it) " +
  'or set CHROMIUM_PATH to a Chromium executable';

/** CHROMIUM_PATH, else `chromium` or `chromium-browser` on the PATH; none is a failure, not a skip. */
function chromiumPath(): string {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!executable(fromEnv))
      throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable: ${INSTALL_HINT}`);
    return fromEnv;
  }
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of ['chromium', 'chromium-browser'])
    for (const dir of dirs) if (executable(join(dir, name))) return join(dir, name);
  throw new Error(`the docs page test needs a Chromium browser and found none: ${INSTALL_HINT}`);
}

interface DocumentOperation {
  operationId: string;
  summary: string;
  deprecated?: boolean;
  'x-codeSamples': { lang: string; label: string; source: string }[];
}
type Document = { paths: Record<string, Partial<Record<string, DocumentOperation>>> };

const committed = (): Document => JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as Document;

/** Each operation of a document (openapi.json unless given) as Redoc shows it. */
const operations = (document: Document = committed()): DocumentOperation[] =>
  Object.values(document.paths).flatMap((item) =>
    Object.values(item).filter((op): op is DocumentOperation => op !== undefined),
  );

/** The labels of the code samples every operation shows (lib/openapi/code-samples.ts). */
const SAMPLE_LABELS = ['curl', 'TypeScript'];

/**
 * Runs in the page: per operation, the text of each code sample tab (clicked, as a reader does)
 * among its request samples.
 */
const READ_SAMPLES = `(async (labels) => {
  const shown = {};
  for (const section of document.querySelectorAll('.api-content [id^="operation/"]')) {
    const samples = {};
    const tabs = [...section.querySelectorAll('[role="tab"]')];
    // The first tab of the request samples, selected when the page opens.
    samples.first = tabs[0] ? tabs[0].textContent.trim() : null;
    for (const tab of tabs) {
      const label = tab.textContent.trim();
      if (!labels.includes(label)) continue;
      tab.click();
      await new Promise((ok) => setTimeout(ok, 0));
      const panel = document.getElementById(tab.getAttribute('aria-controls'));
      samples[label] = panel ? panel.querySelector('pre')?.textContent ?? null : null;
    }
    shown[section.id.slice('operation/'.length)] = samples;
  }
  return shown;
})`;

/** Runs in the page before its own scripts: keeps each Content-Security-Policy violation. */
const RECORD_VIOLATIONS = `window.violations = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.violations.push(e.effectiveDirective + ' ' + e.blockedURI));`;

let browser: Browser | undefined;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), timeout: 20_000 });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Opens `url`, waits for Redoc, and returns what the page showed: each operation's heading by
 * operationId, the requests that reached the network, those the page's policy blocked, the
 * policy violations and script errors. `local` says which URLs stay on this machine.
 */
async function render(url: string, local: (url: URL) => boolean, screenshot: string) {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const left: string[] = [];
  const blocked: string[] = [];
  const errors: string[] = [];
  const isLocal = (href: string) =>
    ['data:', 'blob:'].includes(new URL(href).protocol) || local(new URL(href));
  // Every request that would reach the network passes here; one off the machine is refused.
  await context.route('**/*', (route) => {
    if (isLocal(route.request().url())) return route.continue();
    left.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('requestfailed', (r) => {
    if (r.failure()?.errorText === 'csp') blocked.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript({ content: RECORD_VIOLATIONS });
  try {
    await page.goto(url);
    await page.waitForSelector('.api-content [id^="operation/"]', { timeout: 30_000 });
    const headings = await page.$$eval('.api-content [id^="operation/"]', (sections) =>
      Object.fromEntries(
        sections.map((s) => [s.id.slice('operation/'.length), s.querySelector('h2')?.textContent]),
      ),
    );
    const menu = await page.$$eval('.menu-content label', (labels) =>
      labels.map((l) => l.textContent?.trim() ?? ''),
    );
    const samples = (await page.evaluate(`${READ_SAMPLES}(${JSON.stringify(SAMPLE_LABELS)})`)) as Record<
      string,
      Record<string, string | null>
    >;
    const violations = (await page.evaluate('window.violations')) as string[];
    await page.screenshot({ path: join(ARTIFACTS, screenshot) });
    return { headings, menu, samples, left, blocked, violations, errors, isLocal };
  } finally {
    await context.close();
  }
}

/**
 * What both pages must show: every operation but the deprecated aliases (out of the menu), each
 * with its curl and TypeScript samples as `document` has them; nothing fetched from off the machine.
 */
function expectComplete(shown: Awaited<ReturnType<typeof render>>, document: Document): void {
  const all = operations(document);
  const expected = all.filter((op) => op.deprecated !== true);
  const deprecated = all.filter((op) => op.deprecated === true);
  expect(expected.length).toBeGreaterThan(10);
  expect(deprecated.map((op) => op.operationId).sort()).toEqual(
    operations()
      .filter((op) => op.operationId.endsWith('Alias'))
      .map((op) => op.operationId)
      .sort(),
  );
  // Redoc's heading is the summary (whitespace aside); an operation it did not render has none.
  const missing = expected.filter(
    ({ operationId, summary }) => shown.headings[operationId]?.replace(/\s+/g, ' ').trim() !== summary,
  );
  expect(missing).toEqual([]);
  // The deprecated aliases: neither in the menu nor on the page (the page shows what the menu has).
  expect(deprecated.filter((op) => op.operationId in shown.headings).map((op) => op.operationId)).toEqual([]);
  expect(shown.menu.filter((label) => /deprecated|alias/i.test(label))).toEqual([]);
  // Every operation: a curl and a TypeScript sample, each the document's text (Redoc highlights
  // it in spans; the text is the same).
  for (const op of expected) {
    const want = Object.fromEntries(
      SAMPLE_LABELS.map((label) => [label, op['x-codeSamples'].find((s) => s.label === label)?.source]),
    );
    // The operation opens on its curl sample (the payload's tab, if any, after the samples).
    expect({ operationId: op.operationId, samples: shown.samples[op.operationId] }).toEqual({
      operationId: op.operationId,
      samples: { first: 'curl', ...want },
    });
    expect(want.curl).toMatch(/^curl /);
    expect(want.TypeScript).toContain('await client.');
  }
  expect(shown.left).toEqual([]);
  // Redoc's footer asks cdn.redoc.ly for a logo: the policy blocks it (the image hides itself).
  // Nothing else is blocked: not the page's own scripts, styles or Redoc's search worker.
  expect(shown.blocked.filter(shown.isLocal)).toEqual([]);
  expect(shown.violations.filter((v) => !/^img-src https:\/\//.test(v))).toEqual([]);
  expect(shown.errors).toEqual([]);
}

test('the local runtime serves the rendered reference at /docs, without a token', async () => {
  const origin = new URL(baseUrl()).origin;
  const response = await fetch(`${baseUrl()}/docs`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");

  // The runtime's document names the runtime itself: its samples call the runtime's address.
  const document = (await (await fetch(`${baseUrl()}/docs/openapi.json`)).json()) as Document;
  const createGroup = operations(document).find((op) => op.operationId === 'CreateGroup')!;
  expect(createGroup['x-codeSamples'][0]?.source).toContain(`'${baseUrl()}/rest/merchants/`);

  const shown = await render(`${baseUrl()}/docs`, (u) => u.origin === origin, 'docs-local.png');
  expectComplete(shown, document);
}, 50_000);

test("the page's curl samples run as written: the overview's token line, then the merchant's reads", async () => {
  const document = (await (await fetch(`${baseUrl()}/docs/openapi.json`)).json()) as Document & {
    info: { description: string };
  };
  // The one shell line of the overview that fills $TOKEN, as a reader copies it.
  const tokenLine = /```sh\n(TOKEN=.*)\n```/.exec(document.info.description)?.[1];
  expect(tokenLine).toBeDefined();
  const env = { ...process.env, CLIENT_ID: TESTER.id, CLIENT_SECRET: TESTER.secret };
  // The GETs that name no resource but the merchant: safe to send as they are, on the seeded MID.
  const reads = Object.entries(document.paths)
    .filter(([path]) => !/\{(?!MID\})/.test(path))
    .flatMap(([, item]) => (item.get ? [item.get] : []));
  expect(reads.length).toBeGreaterThanOrEqual(5);
  for (const op of reads) {
    const curl = op['x-codeSamples'].find((s) => s.label === 'curl')!.source;
    const script = `set -e\n${tokenLine!}\n${curl} -sS -o /dev/null -w '%{http_code}'`;
    const { stdout } = await run('bash', ['-c', script], { env, timeout: 15_000 });
    expect({ operationId: op.operationId, status: stdout }).toEqual({
      operationId: op.operationId,
      status: '200',
    });
  }
}, 60_000);

test("the runtime's own address leads a browser to the reference", async () => {
  const context = await browser!.newContext();
  try {
    const page = await context.newPage();
    const response = await page.goto(`${baseUrl()}/`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${baseUrl()}/docs`);
    await page.waitForSelector('.api-content [id^="operation/"]', { timeout: 30_000 });
  } finally {
    await context.close();
  }
}, 40_000);

test('npm run docs writes the same reference as one static file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sps-docs-'));
  try {
    const file = join(dir, 'api-docs.html');
    await run(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['scripts/docs.ts', '--stage', 'dev', '--out', file],
      {
        cwd: ROOT,
      },
    );
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script[^>]*\ssrc=/);
    const fileUrl = pathToFileURL(file).href;
    const shown = await render(fileUrl, (u) => u.href === fileUrl, 'docs-static.png');
    // Written without URLs: the same document as openapi.json.
    expectComplete(shown, committed());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 50_000);
