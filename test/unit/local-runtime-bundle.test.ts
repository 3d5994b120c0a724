/**
 * `npm start` runs what the tests and the bench launch: the runtime's bundle, built first, with the
 * launcher's Node flags (lib/local/runtime-bundle.ts).
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import {
  LOCAL_RUNTIME_BUNDLE,
  LOCAL_RUNTIME_NODE_FLAGS,
  localRuntimeCommand,
  localToolCommand,
} from '#lib/local/runtime-bundle';

const ROOT = resolve(__dirname, '..', '..');
const { scripts } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test('npm start builds the bundle, then runs it with the flags the launcher gives it', () => {
  expect(scripts.prestart).toContain('node scripts/build-local-runtime.mjs');
  expect(scripts.start).toBe(
    ['node', ...LOCAL_RUNTIME_NODE_FLAGS, relative(ROOT, LOCAL_RUNTIME_BUNDLE)].join(' '),
  );
});

test('the launcher runs the bundle on this Node, its own flags after the runtime flags', () => {
  process.env.LOCAL_RUNTIME_BUNDLE = LOCAL_RUNTIME_BUNDLE; // as if built: nothing is built here
  const tier = process.env.LOCAL_NODE_GC;
  try {
    delete process.env.LOCAL_NODE_GC;
    expect(localRuntimeCommand(['--cpu-prof'])).toEqual([
      process.execPath,
      [...LOCAL_RUNTIME_NODE_FLAGS, '--cpu-prof', LOCAL_RUNTIME_BUNDLE],
    ]);
  } finally {
    process.env.LOCAL_NODE_GC = tier;
  }
});

test("in the test tiers (jest.config.js), the runtimes and the tests' tools collect garbage on one thread", () => {
  process.env.LOCAL_RUNTIME_BUNDLE = LOCAL_RUNTIME_BUNDLE;
  expect(process.env.LOCAL_NODE_GC).toBe('single-threaded');
  expect(localRuntimeCommand([])[1]).toEqual([
    ...LOCAL_RUNTIME_NODE_FLAGS,
    '--single-threaded-gc',
    LOCAL_RUNTIME_BUNDLE,
  ]);
  expect(localToolCommand('spay', ['--help'])[1]).toContain('--single-threaded-gc');
  // And Jest itself, in every tier's script.
  for (const tier of ['unit', 'integration', 'infra', 'e2e'])
    expect(scripts[`test:${tier}`]).toMatch(
      /^node --single-threaded-gc node_modules\/jest\/bin\/jest\.js --selectProjects /,
    );
});
