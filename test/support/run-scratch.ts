/**
 * A test tier's scratch directory for the run, made by its global setup and removed by its
 * teardown. Its `tmp` is the workers' TMPDIR (they start after the setup, with its environment),
 * so that what the test files and the tools they run make in the temporary directory (key files,
 * receivers' secrets, broken definitions, each CDK app's `cdk.out*`) goes with it: made per test
 * file in the system's temporary directory, some 60 a run had piled up by the thousand in /tmp.
 * The e2e tier's is in memory where it can be (test/support/e2e-global-setup.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const variable = (tier: string): string => `${tier.toUpperCase()}_SCRATCH_DIR`;

/** Makes the tier's scratch directory and points TMPDIR into it; returns the directory. */
export function makeRunScratch(tier: string): string {
  // The system's own, kept for a later tier's setup in the same process. (A run of several projects
  // makes each one's scratch directory there, but their workers are shared and get the last one's
  // TMPDIR: the tiers run one project at a time, as package.json's scripts run them.)
  process.env.SPS_SYSTEM_TMPDIR ??= tmpdir();
  const scratch = mkdtempSync(join(process.env.SPS_SYSTEM_TMPDIR, `sps-${tier}-`));
  process.env[variable(tier)] = scratch;
  process.env.TMPDIR = join(scratch, 'tmp');
  mkdirSync(process.env.TMPDIR);
  return scratch;
}

/** Removes the tier's scratch directory, with whatever its files left in it. */
export function removeRunScratch(tier: string): void {
  const scratch = process.env[variable(tier)];
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
