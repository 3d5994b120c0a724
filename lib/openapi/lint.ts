/**
 * `redocly lint` with redocly.yaml (the recommended-strict ruleset) over the document's text. The
 * CLI itself runs, on this Node, so that the check is exactly what `npx redocly lint` reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** Lints the document `text` (as openapi.json would hold it); throws with the report when it fails. */
export function lintOpenApi(text: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, text);
    const cli = resolve(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const result = spawnSync(
      process.execPath,
      [cli, 'lint', file, '--config', resolve(root, 'redocly.yaml'), '--format', 'stylish'],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    if (result.status !== 0) {
      throw new Error(`redocly lint (redocly.yaml) failed:\n${result.stdout}${result.stderr}`.trim());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
