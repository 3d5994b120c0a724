/**
 * Issue 23 item 1: the client is a package. `npm pack` in client/ builds it (ESM, CommonJS and
 * `.d.ts`); a scratch project outside the repository installs the tarball, type-checks a
 * TypeScript file against its declarations, requires it from CommonJS, and runs a script through
 * every operation against the local runtime.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { baseUrl, futureDate, MID } from '#support/api';
import { cardInput } from '#support/fixtures/inputs';
import { operations } from '#support/security-operations';

const ROOT = resolve(__dirname, '..', '..');
let scratch: string;

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'spay-client-package-'));
  run('npm', ['pack', '--pack-destination', scratch], join(ROOT, 'client'));
  const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  );
  run(
    'npm',
    ['install', `./${tarball}`, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    scratch,
  );
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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
