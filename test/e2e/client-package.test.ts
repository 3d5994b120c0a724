/**
 * Issue 23 item 1: the client is a package, and an integrator gets it the way the docs say: the
 * install commands of docs/integrating.md "Installing the client" (the same lines as the docs
 * page's) are run as written, from this checkout into a scratch project outside the repository,
 * which then holds the tarball as a `file:` dependency. The installed package carries ESM,
 * CommonJS and declarations; the docs page's own TypeScript samples (as the local runtime serves
 * them) type-check and run in the scratch project; and a script there calls every operation
 * against the local runtime.
 */
import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLIENT_INSTALL, CLIENT_TARBALL } from '#lib/openapi/code-samples';
import { baseUrl, futureDate, MID, TESTER } from '#support/api';
import { cardInput } from '#support/fixtures/inputs';
import { operations } from '#support/security-operations';

const ROOT = resolve(__dirname, '..', '..');
let scratch: string;

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
    env: { ...process.env, ...env },
  });

/** The install commands of docs/integrating.md, as written there. */
function documentedInstall(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'integrating.md'), 'utf8');
  const section = guide.slice(guide.indexOf('### Installing the client'));
  return /```bash\n([\s\S]*?)\n```/.exec(section)![1]!;
}

/**
 * GET on a connection of its own, closed after the answer, not one of fetch's pool (which this
 * worker's earlier files filled). A CI run got "GET /docs/openapi.json answered 408": the body the
 * runtime gives Node's request-timeout close (lib/local/http-server.ts answerClientError), which
 * Node writes on a connection whose request it has waited a minute or more for. No connection
 * this request opens can be one, so it was a pooled connection, taken again as the runtime closed
 * it; this file blocks its process for tens of seconds in execFileSync, when nothing reads the pool.
 */
function getOnItsOwnConnection(url: string): Promise<{ status: number; text: string }> {
  return new Promise((ok, fail) => {
    const req = get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
      res.on('error', fail);
    });
    req.on('error', fail);
  });
}

/** The TypeScript sample of an operation on the runtime's docs page (its document names the runtime). */
async function docsPageSample(operationId: string): Promise<string> {
  const res = await getOnItsOwnConnection(`${baseUrl()}/docs/openapi.json`);
  const text = res.text;
  // What the runtime answered, if not the document (one CI run saw an object without paths here).
  if (res.status !== 200)
    throw new Error(`GET /docs/openapi.json answered ${res.status}: ${text.slice(0, 300)}`);
  const doc = JSON.parse(text) as {
    paths: Record<
      string,
      Record<string, { operationId: string; 'x-codeSamples': { label: string; source: string }[] }>
    >;
  };
  const op = Object.values(doc.paths)
    .flatMap((item) => Object.values(item))
    .find((o) => o.operationId === operationId)!;
  return op['x-codeSamples'].find((s) => s.label === 'TypeScript')!.source;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'spay-client-package-'));
  // An integrator's project: an ES module package (the samples use top-level await).
  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  );
  // The documented lines as they are, in the repository's root; only the project is this test's.
  const [first, ...rest] = documentedInstall().split('\n');
  expect(first).toMatch(/^APP=~\/my-app +# your project$/);
  run('bash', ['-c', ['set -euo pipefail', `APP=${scratch}`, ...rest].join('\n')], ROOT, {
    // npm's own settings (an .npmrc would do the same): the commands stay as documented.
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  });
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("defect: the docs page's samples imported a package nobody could install: the docs page and docs/integrating.md give the same install commands, and they install it as a file: dependency", () => {
  expect(documentedInstall()).toBe(CLIENT_INSTALL);
  const overview = (
    JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { info: { description: string } }
  ).info.description;
  expect(overview).toContain(`\`\`\`sh\n${CLIENT_INSTALL}\n\`\`\``);
  // The tarball is named as the docs name it: client/package.json's name and version.
  const client = JSON.parse(readFileSync(join(ROOT, 'client', 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  expect(CLIENT_TARBALL).toBe(`${client.name.replace(/^@/, '').replace('/', '-')}-${client.version}.tgz`);
  expect(readdirSync(scratch)).toContain(CLIENT_TARBALL);
  const manifest = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(manifest.dependencies).toEqual({ '@scheduled-payments/client': `file:${CLIENT_TARBALL}` });
});

test("the docs page's TypeScript samples type-check and run in the scratch project", async () => {
  const samples = { health: 'GetHealth', groups: 'ListGroups' };
  for (const [name, id] of Object.entries(samples))
    writeFileSync(
      join(scratch, `${name}.ts`),
      `${await docsPageSample(id)}\nconsole.log(JSON.stringify(answer));\n`,
    );
  run(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      '--types',
      'node',
      '--typeRoots',
      join(ROOT, 'node_modules', '@types'),
      'health.ts',
      'groups.ts',
    ],
    scratch,
  );
  // Node 22 runs them as they are (type stripping), with the client's credentials in the environment.
  const env = { CLIENT_ID: TESTER.id, CLIENT_SECRET: TESTER.secret };
  expect(JSON.parse(run(process.execPath, ['health.ts'], scratch, env))).toEqual({ status: 'ok' });
  expect(JSON.parse(run(process.execPath, ['groups.ts'], scratch, env))).toEqual(expect.any(Array));
}, 60_000);

test('the installed package carries ESM, CommonJS and declarations, and nothing of the service', () => {
  const installed = join(scratch, 'node_modules', '@scheduled-payments', 'client');
  const files = readdirSync(join(installed, 'dist'));
  expect(files).toEqual(expect.arrayContaining(['index.mjs', 'index.cjs', 'index.d.ts']));
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
    string,
    object
  >;
  expect(Object.keys(manifest.dependencies ?? {})).toEqual(['standardwebhooks']);
  for (const bundle of ['index.mjs', 'index.cjs'])
    expect(readFileSync(join(installed, 'dist', bundle), 'utf8')).not.toMatch(/lambdas\/|contract\/|#shared/);
  const cjs = run(
    'node',
    ['-e', "console.log(typeof require('@scheduled-payments/client').ScheduledPaymentsClient)"],
    scratch,
  );
  expect(cjs.trim()).toBe('function');
  // A TypeScript file type-checks against the package's declarations (Node's module resolution).
  writeFileSync(
    join(scratch, 'check.ts'),
    [
      "import { ApiError, ScheduledPaymentsClient, verifyWebhook, type WebhookEvent } from '@scheduled-payments/client';",
      "const api = new ScheduledPaymentsClient({ baseUrl: 'x', tokenUrl: 'x', clientId: 'x', clientSecret: 'x' });",
      "export const sale = api.createSale('32350000001', { profileId: 'a/b', amount: 1 }, { idempotencyKey: 'k' });",
      'export const describe = (e: WebhookEvent) => (e.type === "payment.approved" ? e.data.paymentId : e.type);',
      'export const status = (e: ApiError): number => e.status;',
      'export const verify = verifyWebhook;',
      '',
    ].join('\n'),
  );
  run(
    'node',
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--skipLibCheck',
      '--types',
      'node',
      '--typeRoots',
      join(ROOT, 'node_modules', '@types'),
      'check.ts',
    ],
    scratch,
  );
}, 60_000);

test('a script in the scratch project calls every operation against the local runtime', () => {
  const script = join(ROOT, 'test', 'support', 'fixtures', 'client-package', 'every-operation.mjs');
  writeFileSync(join(scratch, 'every-operation.mjs'), run('cat', [script], ROOT));
  const args = { baseUrl: baseUrl(), mid: MID, card: cardInput(), date: futureDate(6) };
  const out = run('node', ['every-operation.mjs', JSON.stringify(args)], scratch);
  const called = new Set(JSON.parse(out.trim().split('\n').at(-1)!) as string[]);
  // Every operation of openapi.json but the deprecated /transactions aliases, by its method name.
  const expected = operations()
    .map((op) => op.operationId)
    .filter((id) => !id.endsWith('Alias'))
    .map((id) => id[0]!.toLowerCase() + id.slice(1));
  expect(expected.filter((name) => !called.has(name))).toEqual([]);
}, 120_000);
