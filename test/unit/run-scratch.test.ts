/**
 * The test tiers' temporary files (test/support/run-scratch.ts): each tier's go to one scratch
 * directory for the run, which its teardown removes. Made per test file in the system's temporary
 * directory, they had piled up by the thousand in /tmp.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRunScratch, removeRunScratch } from '#support/run-scratch';

test('the unit tier temporary files go to its run scratch directory', () => {
  const scratch = process.env.UNIT_SCRATCH_DIR;
  expect(scratch).toMatch(/sps-unit-/);
  expect(tmpdir()).toBe(join(scratch!, 'tmp'));
});

test('a tier scratch directory is removed with what its files left in it, TMPDIR pointing into it until then', () => {
  const saved = { TMPDIR: process.env.TMPDIR, PROBE_SCRATCH_DIR: process.env.PROBE_SCRATCH_DIR };
  try {
    const scratch = makeRunScratch('probe');
    // TMPDIR as the workers started after a global setup get it (this file's process.env is Jest's copy).
    expect(process.env.TMPDIR).toBe(join(scratch, 'tmp'));
    const left = join(mkdtempSync(join(process.env.TMPDIR!, 'left-')), 'key');
    writeFileSync(left, 'k');
    removeRunScratch('probe');
    expect(existsSync(scratch)).toBe(false);
  } finally {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
});
