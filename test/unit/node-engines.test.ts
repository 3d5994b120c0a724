/**
 * The README's set-up line says what `npm ci` does on the Node it names: npm runs on that Node
 * (20.19 or later) and installs Node 22 (the npm package `node`), which every npm script runs on.
 * Every package of the lockfile accepts that Node 22; on the Node the README names, exactly the
 * packages the README lists warn `EBADENGINE` (they declare Node 22), and no other.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { satisfies } from 'semver';

const ROOT = resolve(__dirname, '..', '..');
const read = (file: string): string => readFileSync(resolve(ROOT, file), 'utf8');

interface LockPackage {
  version?: string;
  engines?: { node?: string } | string[];
}
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockPackage> };
const manifest = JSON.parse(read('package.json')) as {
  name: string;
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const readme = read('README.md');
const setUp = readme.slice(
  readme.indexOf('## Set up'),
  readme.indexOf('\n## ', readme.indexOf('## Set up') + 1),
);

/** The README's prerequisite: "**Node.js 20.19+** to run `npm ci`". */
const named = /\*\*Node\.js (\d+)\.(\d+)\+\*\* to run `npm ci`/.exec(setUp);
/** The Node npm installs and runs the scripts on. */
const installed = lock.packages['node_modules/node']!.version!;

/** The packages of the lockfile whose `engines` refuse `version` (the root as package.json's name). */
const refusing = (version: string): string[] =>
  Object.entries(lock.packages).flatMap(([path, pkg]) => {
    const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (range === undefined || satisfies(version, range)) return [];
    return [path === '' ? manifest.name : path.replace(/^.*node_modules\//, '')];
  });

test('defect: the README said Node 22.13+ while npm ci runs on Node 20 and warns EBADENGINE: it names the Node that runs npm ci, the Node it installs, and the warnings', () => {
  expect(named).not.toBeNull();
  expect(setUp).toContain(`installs Node ${installed.split('.')[0]} (the Lambda runtime)`);
  // On the Node it names, npm warns for exactly the packages the README lists, and says why.
  const oldest = `${named![1]}.${named![2]}.0`;
  expect(refusing(oldest).sort()).toEqual(['aws-local-stepfunctions', manifest.name]);
  expect(setUp).toContain(
    'prints `npm warn EBADENGINE` for this package and aws-local-stepfunctions\n(both declare Node 22, which they get): warnings, not a failure',
  );
});

test('every package of the lockfile accepts the Node 22 npm installs, and package.json declares it', () => {
  expect(installed).toMatch(/^22\./);
  expect(manifest.devDependencies.node).toBe(`^${installed}`);
  expect(lock.packages['']!.engines).toEqual(manifest.engines);
  expect(satisfies(installed, manifest.engines.node)).toBe(true);
  expect(refusing(installed)).toEqual([]);
  // The scripts' own check asks for that major.
  expect(read('scripts/check-node.mjs')).toContain(`if (major < ${installed.split('.')[0]})`);
});
