// `npm run cli` and `npm run admin`: the tool (bin/spay.ts, bin/admin.ts) run from its TypeScript
// through tsx, so that an edit takes effect at once; or, in a process tree that built the local
// runtime's bundles from this checkout (LOCAL_RUNTIME_BUNDLE, set by lib/local/runtime-bundle.ts:
// the test tiers' runs), from the tool's bundle beside it, in this process: a third of the CPU a
// command (some 40 commands of the e2e tier are typed as a tester types them, `npm run cli -- ...`).
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [tool, ...args] = process.argv.slice(2);
if (tool !== 'spay' && tool !== 'admin') {
  console.error('usage: node scripts/tool.mjs <spay|admin> [arguments]');
  process.exit(2);
}
const built = process.env.LOCAL_RUNTIME_BUNDLE;
if (built) {
  const bundle = join(dirname(built), `${tool}.cjs`);
  process.argv = [process.argv[0], bundle, ...args];
  process.setSourceMapsEnabled(true);
  createRequire(import.meta.url)(bundle);
} else {
  // As `node --import tsx bin/<tool>.ts` runs it: tsx's hooks, then the tool, in this process.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const entry = join(root, 'bin', `${tool}.ts`);
  process.argv = [process.argv[0], entry, ...args];
  await import('tsx');
  await import(pathToFileURL(entry).href);
}
