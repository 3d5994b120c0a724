/** `npm run admin -- reconcile --local` against the running local runtime: JSON, table, exit code. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { baseUrl, call, MID } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import { localToolCommand } from '#lib/local/runtime-bundle';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
/** SANDBOX_SETTLEMENT_SECONDS of the e2e runtime (test/support/e2e-global-setup.ts). */
const SETTLEMENT_MS = 8_000;

/** The admin command's output and exit code (it exits 1 when unhealed differences remain). */
async function reconcile(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const [command, commandArgs] = localToolCommand('admin', ['reconcile', ...args, '--local']);
    const { stdout } = await run(command, commandArgs, {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR! },
    });
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

test("a Pending sale healed by reconcile --local gets the runtime's settlement cut-off, not the cloud default", async () => {
  const since = new Date(Date.now() - 1000).toISOString();
  const profileId = await aProfile();
  const amount = 27.41;
  // A keyless sale whose process dies after the processor approved it stays Pending.
  const faults = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ crashAfterApproval: [{ profileId, amount }] }),
  });
  expect(faults.status).toBe(200);
  const base = `/v1/rest/merchants/${MID}/transactions`;
  expect((await call('POST', base, { profileId, amount })).status).toBeGreaterThanOrEqual(500);
  const retry = await call('POST', base, { profileId, amount });
  const pendingId = retry.body.originalTransactionId as string;
  expect((await call('GET', `${base}/${pendingId}`)).body).toMatchObject({ status: 'Pending' });

  await reconcile('--since', since, '--stale-minutes', '0', '--json');
  const healed = (await call('GET', `${base}/${pendingId}`)).body;
  expect(healed).toMatchObject({ status: 'Approved', responseCode: '00' });
  // The runtime's cut-offs are every SANDBOX_SETTLEMENT_SECONDS from the epoch: the next one after
  // the answer, not the cloud default's next half hour.
  const cutOff = Date.parse(healed.settlementTime);
  expect(cutOff % SETTLEMENT_MS).toBe(0);
  expect(cutOff - Date.parse(healed.processedAt)).toBeLessThanOrEqual(SETTLEMENT_MS);
});
