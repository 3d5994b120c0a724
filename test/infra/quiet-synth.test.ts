/**
 * `cdk synth -q` prints no bundling report: a function bundled for real (esbuild, as `cdk synth`
 * does) writes nothing to stdout or stderr, neither esbuild's list of files and sizes nor CDK's
 * "Bundling asset ..." line, and its bundle is there.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '..', '..');

test('bundling a function prints nothing, and the bundle is written', async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'sps-quiet-synth-'));
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['test/support/cdk/one-function-app.ts', outdir],
      { cwd: ROOT, timeout: 60_000 },
    );
    expect({ stdout, stderr }).toEqual({ stdout: '', stderr: '' });
    const assets = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    expect(existsSync(join(outdir, assets[0]!, 'index.js'))).toBe(true);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 90_000);
