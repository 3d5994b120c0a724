/** `npm run admin -- reconcile --local` against the running local runtime: JSON, table, exit code. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { call, MID } from '../support/api';
import { aProfile } from '../fixtures/api';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

/** The admin command's output and exit code (it exits 1 when unhealed differences remain). */
async function reconcile(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['bin/admin.ts', 'reconcile', ...args, '--local'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR! } },
    );
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    if (failed.code !== 1 || failed.stdout === '') throw error;
    return { stdout: failed.stdout, code: failed.code };
  }
}

test('a sale through the API reconciles with the sandbox ledger', async () => {
  const since = new Date(Date.now() - 1000).toISOString();
  const profileId = await aProfile();
  const sale = await call('POST', `/v1/rest/merchants/${MID}/transactions`, { profileId, amount: 12.34 });
  expect(sale.body.status).toBe('Approved');

  const { stdout, code } = await reconcile('--since', since, '--json');
  const report = JSON.parse(stdout);
  expect(report).toMatchObject({ since, counts: expect.any(Object), differences: expect.any(Array) });
  // Other suites running meanwhile may leave differences of their own, never about this sale.
  expect(report.differences.filter((d: any) => d.transactionId === sale.body.transactionId)).toEqual([]);
  expect(code).toBe(report.unhealed > 0 ? 1 : 0);
});

test('prints the table for people, and refuses a malformed --since', async () => {
  const { stdout } = await reconcile('--since', new Date(Date.now() - 60_000).toISOString());
  expect(stdout).toContain('local runtime');
  expect(stdout).toMatch(/reconciliation \S+ \.\. \S+: \d+ unhealed, \d+ healed/);
  expect(stdout).toMatch(/^charge-without-record\s+\d+\s+\d+$/m);
  await expect(reconcile('--since', 'yesterday')).rejects.toMatchObject({
    stderr: expect.stringContaining('not an ISO-8601 time'),
  });
});
