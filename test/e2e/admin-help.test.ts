/** Issue 12, item 7: `npm run admin -- --help` (or `-h`, or `help`) prints the usage and exits 0. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { localToolCommand } from '#lib/local/runtime-bundle';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

test.each([['--help'], ['-h'], ['help'], ['grant', '--help']])(
  'admin %s prints the usage on stdout, exit 0, touching no table',
  async (...args) => {
    // No runtime.json in this DATA_DIR: the usage must not need a target.
    const [command, commandArgs] = localToolCommand('admin', args);
    const { stdout, stderr } = await run(command, commandArgs, {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: join(ROOT, 'test', 'no-such-data-dir') },
    });
    expect(stdout).toMatch(/^usage: npm run admin -- <command>/);
    for (const command of ['register-merchant', 'grant|revoke', 'grants', 'merchant', 'reconcile'])
      expect(stdout).toContain(`  ${command} `);
    expect(stderr).toBe('');
  },
  30_000,
);
