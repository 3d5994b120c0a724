/** `npm run smoke` (scripts/smoke.ts) against the local runtime: every step passes. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
const BASE_URL = (): string => process.env.E2E_BASE_URL!.replace(/\/$/, '');

/** Runs the smoke test; its exit status and output lines, whether it passed or not. */
const smoke = (...args: string[]): Promise<{ code: number; lines: string[] }> =>
  run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/smoke.ts', ...args], {
    cwd: ROOT,
  }).then(
    ({ stdout }) => ({ code: 0, lines: stdout.trim().split('\n') }),
    (error: { code: number; stdout: string }) => ({
      code: error.code,
      lines: error.stdout.trim().split('\n'),
    }),
  );

test('the smoke test passes every step against the local runtime, found by its runtime.json', async () => {
  // No --base-url: the address (a random port here) comes from the data directory, as `spay login` finds it.
  const { code, lines } = await smoke('--data-dir', process.env.E2E_DATA_DIR!, '--timeout-seconds', '60');
  if (code !== 0) console.log(lines.join('\n'));
  expect({ steps: lines.map((l) => l.split(' (')[0]), lines }).toMatchObject({
    steps: [
      'PASS token',
      'PASS payor',
      'PASS group',
      'PASS trigger',
      'PASS wait for processed',
      'PASS void-or-refund',
      `smoke passed: 6/6 steps against ${BASE_URL()}`,
    ],
  });
  expect(code).toBe(0);
});

test('the smoke test fails with a FAIL line, skips the rest and exits 1 when a step fails', async () => {
  const { code, lines } = await smoke('--base-url', BASE_URL(), '--client-secret', 'wrong');
  expect(lines[0]).toMatch(/^FAIL token \(\d+ ms\): POST .*oauth2\/token: 401/);
  expect(lines.slice(1)).toEqual([
    'SKIP payor',
    'SKIP group',
    'SKIP trigger',
    'SKIP wait for processed',
    'SKIP void-or-refund',
    `smoke FAILED: 0/6 steps against ${BASE_URL()}`,
  ]);
  expect(code).toBe(1);
});
