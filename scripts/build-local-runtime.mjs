// The local runtime (bin/local.ts, what `npm start` runs and the tests and the bench launch) as one
// CommonJS file: esbuild bundles the repository's own modules (the route handlers, the in-process
// Lambdas, the ASL runner's bindings) and leaves the packages to node_modules. Starting from it,
// Node compiles one file instead of resolving and transforming some 300 TypeScript modules through
// tsx's loader hooks at every start (about two seconds of CPU a start; the crash test restarts the
// runtime 20 times). The packages stay outside so that each keeps its own files and module
// identity (the bench's preloaded census wraps the SDK client the runtime uses).
//
// The admin CLI (bin/admin.ts) and the tester CLI (bin/spay.ts) are bundled beside it, for the
// tests that run them some 30 times a run (a second of CPU each under tsx, a third from a bundle).
//
// Written to node_modules/.cache/local-runtime/ (inside the repository, so that the packages
// resolve from it; lib/local/runtime-bundle.ts names the files) through renames, so that a
// process starting meanwhile reads a whole file. `npm start` runs it first (`prestart`), the
// launcher of the tests and the bench once per run.
import { renameSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_DIR = join(ROOT, 'node_modules', '.cache', 'local-runtime');
/** Each bundle's name (`<name>.cjs`) and entry point. */
const ENTRIES = { local: 'bin/local.ts', admin: 'bin/admin.ts', spay: 'bin/spay.ts' };

/**
 * Two things the bundle must do as tsx does, for the repository's own modules:
 * - a module that locates files next to itself (the state machines' ASL beside contract/,
 *   DynamoDB Local's jar at the root) keeps its own `__dirname`, not the bundle's;
 * - a handler loaded by name (`import(`../../lambdas/${module}`)`, lib/local/) is found: esbuild
 *   bundles every file the template can name, under its name with the extension, which the
 *   template then gets.
 */
const TEMPLATE_IMPORT = /import\(`(\.{1,2}\/[^`$]*\$\{[^}`]+\})`\)/;
const asTsx = {
  name: 'as-tsx',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(source) && !TEMPLATE_IMPORT.test(source)) return undefined;
      return {
        loader: 'ts',
        contents: source
          .replace(/\b__dirname\b/g, JSON.stringify(dirname(args.path)))
          .replace(/\b__filename\b/g, JSON.stringify(args.path))
          .replace(new RegExp(TEMPLATE_IMPORT, 'g'), (_m, template) => `import(\`${template}.ts\`)`),
      };
    });
  },
};

export async function buildLocalRuntime() {
  const { outputFiles } = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRIES).map(([out, entry]) => ({ in: entry, out })),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    packages: 'external',
    // `await import(pkg)` as a require, as tsx and the Jest transform run it: a CommonJS package's
    // `default` is its `exports.default` (aws-ses-v2-local), not its whole `module.exports`.
    supported: { 'dynamic-import': false },
    // Stack traces name the TypeScript files (the runtime runs with --enable-source-maps).
    sourcemap: 'linked',
    sourcesContent: false,
    outdir: BUNDLE_DIR,
    outExtension: { '.js': '.cjs' },
    write: false,
    logLevel: 'warning',
    plugins: [asTsx],
  });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const suffix = `.${process.pid}.tmp`;
  // The maps first: a process that reads a new bundle finds its map.
  const ordered = [...outputFiles].sort(
    (a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')),
  );
  for (const file of ordered) {
    writeFileSync(file.path + suffix, file.contents);
    renameSync(file.path + suffix, file.path);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildLocalRuntime();
}
