/**
 * How the local runtime is started: `node <flags> <bundle>`, the bundle being bin/local.ts and the
 * repository's modules it loads in one file (scripts/build-local-runtime.mjs). `npm start` builds
 * it first (its `prestart`); the launcher (tests, bench) builds it once per process tree. The
 * admin and tester CLIs are bundled beside it, for the tests that run them (localToolCommand).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Where scripts/build-local-runtime.mjs writes the bundles (inside the repository: the packages resolve from it). */
const BUNDLE_DIR = join(ROOT, 'node_modules', '.cache', 'local-runtime');
export const LOCAL_RUNTIME_BUNDLE = join(BUNDLE_DIR, 'local.cjs');

/**
 * A directory for Node's compile cache (NODE_COMPILE_CACHE): a process that loads a module another
 * already compiled takes V8's code from here (about a fifth of a runtime start's CPU, 0.3 s). The
 * e2e tier's processes share it (test/support/e2e-global-setup.ts).
 */
export const COMPILE_CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'node-compile-cache');

/**
 * The runtime's AsyncLocalStorage (each in-process invocation's InvokeStore, http-server.ts) on
 * V8's async context frames rather than on promise hooks, which otherwise run on every promise of
 * the runtime (a few per cent of its CPU per API request, the bench's `--profile`); Lambda's
 * isolation of invocations is the same either way.
 */
const ASYNC_CONTEXT_FRAME = '--experimental-async-context-frame';
/**
 * The runtime's Node flags, `npm start`'s too (package.json; test/unit/local-runtime-bundle.test.ts):
 * with source maps, traces name the TypeScript files and lines, as under tsx.
 */
export const LOCAL_RUNTIME_NODE_FLAGS = [ASYNC_CONTEXT_FRAME, '--enable-source-maps'];

/**
 * In the test tiers (LOCAL_NODE_GC=single-threaded, set by jest.config.js), the runtimes and the
 * tools they run collect garbage on their main thread alone (`--single-threaded-gc`): V8's helper
 * threads otherwise compete with the tier's other processes for its two cores (docs/testing.md). A
 * developer's `npm start` keeps V8's defaults.
 */
const tierFlags = (): string[] =>
  process.env.LOCAL_NODE_GC === 'single-threaded' ? ['--single-threaded-gc'] : [];

/**
 * Set to the bundle's path once it is built: later launches of this process and of the processes
 * it starts (Jest's workers, started after the e2e tier's global setup) use that build.
 */
const BUILT = 'LOCAL_RUNTIME_BUNDLE';

/** Builds the bundles unless this process tree already did; the runtime's path. */
function localRuntimeBundle(): string {
  if (process.env[BUILT] === LOCAL_RUNTIME_BUNDLE) return LOCAL_RUNTIME_BUNDLE;
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-local-runtime.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    throw new Error(`the local runtime's bundle did not build:\n${build.stderr}${build.error ?? ''}`);
  }
  process.env[BUILT] = LOCAL_RUNTIME_BUNDLE;
  return LOCAL_RUNTIME_BUNDLE;
}

/** The runtime's command line: this Node, the flags, `nodeArgs` (profiling, preloads), the bundle. */
export const localRuntimeCommand = (nodeArgs: readonly string[] = []): [string, string[]] => [
  process.execPath,
  [...LOCAL_RUNTIME_NODE_FLAGS, ...tierFlags(), ...nodeArgs, localRuntimeBundle()],
];

/**
 * `npm run admin -- <args>` (bin/admin.ts) or `npm run cli -- <args>` (bin/spay.ts) as the tests
 * run it: its bundle on this Node, with source maps (the same code; a third of tsx's CPU a run).
 */
export const localToolCommand = (tool: 'admin' | 'spay', args: readonly string[]): [string, string[]] => {
  localRuntimeBundle();
  return [
    process.execPath,
    ['--enable-source-maps', ...tierFlags(), join(BUNDLE_DIR, `${tool}.cjs`), ...args],
  ];
};
