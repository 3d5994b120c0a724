// Obtains the official DynamoDB Local jar (1.25.1) for the local runtime and the tests.
//
// The npm package amplify-dynamodb-simulator carries the jar in `emulator/`, but as a
// dependency it would drag ~280 packages into the tree. Instead we `npm pack` exactly
// one pinned version, check it against the pinned integrity, and unpack only `emulator/`
// into `.dynamodb-local/`. Runs as `postinstall`, so `npm ci` leaves a ready jar.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = 'amplify-dynamodb-simulator@2.9.30';
const INTEGRITY =
  'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==';
const target = join(import.meta.dirname, '..', '.dynamodb-local');
const marker = join(target, 'VERSION');

if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === PACKAGE) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'ddb-local-'));
try {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', PACKAGE, '--pack-destination', work, '--json', '--silent'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(out);
  const tarball = join(work, filename);
  const digest = 'sha512-' + createHash('sha512').update(readFileSync(tarball)).digest('base64');
  if (digest !== INTEGRITY) throw new Error(`${PACKAGE}: integrity mismatch (${digest})`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=2', 'package/emulator'], {
    stdio: 'inherit',
  });
  if (!existsSync(join(target, 'DynamoDBLocal.jar')))
    throw new Error('DynamoDBLocal.jar missing after unpack');
  writeFileSync(marker, PACKAGE + '\n');
  console.log(`DynamoDB Local unpacked into ${target}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
