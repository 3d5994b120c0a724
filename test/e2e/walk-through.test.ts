/**
 * The walk-throughs of docs/integrating.md work as written: their bash blocks run, in order,
 * against this tier's runtime (only the addresses are swapped), and every step succeeds: the curl
 * walk-through, and the tester CLI's (logged in through a data directory: a runtime of its own,
 * whose settlement cut-offs are an hour apart, so that only its `spay settle` settles the sales; on
 * the tier's runtime, cut-offs every 8 s sometimes settled them first: "Settled 0 sales").
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { launchLocalRuntime } from '#lib/local/launcher';

const run = promisify(execFile);

/** Seconds until 0.3 s after the tier's next settlement cut-off (every 8 s from the epoch), as bash computes it. */
const JUST_AFTER_CUT_OFF = `$(node -e 'console.log(((8000 - (Date.now() % 8000) + 300) / 1000).toFixed(3))')`;

const GUIDE = resolve(__dirname, '..', '..', 'docs', 'integrating.md');

test('the curl walk-through runs start to finish', async () => {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(
    guide.indexOf('## Walk-through (local)'),
    guide.indexOf('## TypeScript client'),
  );
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  expect(section).toContain('# A sale with an idempotency key');
  const script = ['set -euo pipefail', ...blocks]
    .join('\n')
    .replaceAll('http://127.0.0.1:3000', process.env.E2E_BASE_URL!)
    .replaceAll('http://127.0.0.1:8005', process.env.E2E_SES_URL!)
    // Other files share this runtime and own the current hour's groups: tick a slot long past.
    .replaceAll('$(date -u +%FT%H:00:00Z)', '2000-01-01T00:00:00Z')
    // The tier's cut-offs come every 8 s (test/support/e2e-global-setup.ts): the sale that the
    // next lines void is made just after one, so that no cut-off falls between sale and void.
    .replace(
      '# A sale with an idempotency key',
      `sleep ${JUST_AFTER_CUT_OFF}\n# A sale with an idempotency key`,
    );
  // The refund step waits for a sale's settlement cut-off (8 s apart in this tier).
  const { stdout } = await run('bash', ['-c', script], { timeout: 90_000 });
  expect(stdout).toContain('"maskedAccountNumber": "************1111"');
  expect(stdout).toContain('"isDuplicate": true');
  expect(stdout).toContain('"status": "Voided"');
  expect(stdout).toContain('"status": "processed"');
  // Void before the settlement cut-off, refund after it (the e2e runtime's cut-offs are 8 s apart).
  expect(stdout).toMatch(/"voidedCount": 3|"refundedCount": 3/);
  expect(stdout).not.toContain('4111111111111111');
  // The refund step runs (issue 12): 10.00 of the 40.00 sale refunded after its cut-off.
  expect(stdout).toContain('"availableRefundAmount": 30');
  expect(stdout).toContain('"refundCount": 1');
  // Dates work with BSD (macOS) date too: GNU-only `date -d` only as the fallback after `||`.
  expect(section).not.toMatch(/^(?!.*\|\| date).*\bdate\b[^\n]* -d /m);
}, 120_000);

const WALK_THROUGH_MID = '32350000077';

test("the tester CLI's walk-through runs start to finish", async () => {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## Tester CLI'), guide.indexOf('### Test clock'));
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  // A merchant of its own: its `settle` must not settle the sales other files of the tier void.
  const ROOT = resolve(__dirname, '..', '..');
  const admin = (...args: string[]) =>
    run('npm', ['run', '-s', 'admin', '--', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
    });
  const runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-walk-cli',
    env: { SANDBOX_SETTLEMENT_SECONDS: '3600', SETTLEMENT_POLL_SECONDS: '2', LOCAL_DUE_SWEEP_SECONDS: '0' },
  });
  const dataDir = runtime.dataDir;
  await admin('register-merchant', '--mid', WALK_THROUGH_MID, '--name', 'Ogdenville Middle');
  await admin('grant', '--client', 'local-tester', '--mid', WALK_THROUGH_MID);
  const script = ['set -euo pipefail', ...blocks]
    .join('\n')
    // This tier's runtime instead of `npm start`'s: its data directory names its ports.
    .replaceAll('cli -- login', `cli -- login --data-dir ${dataDir} --mid ${WALK_THROUGH_MID}`);
  const home = mkdtempSync(join(tmpdir(), 'spay-walk-through-'));
  try {
    const { stdout } = await run('bash', ['-c', script], {
      timeout: 90_000,
      cwd: ROOT,
      env: { ...process.env, SPAY_HOME: home },
    });
    expect(stdout).toMatch(
      /Logged in to local \(http:\/\/127\.0\.0\.1:\d+\)\nas local-tester, merchant 32350000077/,
    );
    expect(stdout).toContain('Group processed: 3/3 answered: 2 approved, 1 declined, 0 failed');
    expect(stdout).toMatch(/│ INV-3 │ 9\.99\s+│ Declined │ 05\s+│ Do not honor/);
    expect(stdout).toMatch(/Settled 2 sales of 32350000077/);
    expect(stdout).toContain('receipt for your payment of 45.50');
    expect(stdout).toContain('3 e-mails');
    expect(stdout).toContain('Voided 0, refunded 2, skipped 1, failed 0');
    expect(stdout).toMatch(/│ QueueReceipts\s+│ Map/);
  } finally {
    rmSync(home, { recursive: true, force: true });
    await runtime.stop();
  }
}, 180_000);
