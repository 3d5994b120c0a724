/**
 * Builds the client package (client/README.md): ESM and CommonJS bundles with esbuild (the
 * repository's own), `standardwebhooks` left as a dependency, and `.d.ts` files with tsc, the
 * generated schema's declarations copied beside them. `npm pack` in client/ runs it (prepack).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
const common = {
  entryPoints: [join(here, 'index.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['standardwebhooks'],
  logLevel: 'warning',
};
await build({ ...common, format: 'esm', outfile: join(dist, 'index.mjs') });
await build({ ...common, format: 'cjs', outfile: join(dist, 'index.cjs') });
const tsc = join(here, '..', 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
mkdirSync(join(dist, 'generated'), { recursive: true });
copyFileSync(join(here, 'generated', 'schema.d.ts'), join(dist, 'generated', 'schema.d.ts'));
