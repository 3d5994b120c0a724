/**
 * `npm ci` on the Node version the README names gives no engine warning: every package of the
 * lockfile accepts that version (its lowest, and the node@22 binary that npm's scripts run on),
 * and package.json's own `engines` says the same as the README.
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

/** The README's prerequisite: "**Node.js 22.13+**". */
const named = /\*\*Node\.js (\d+)\.(\d+)\+\*\*/.exec(read('README.md'));

test('the README names a Node version, and package.json requires the same', () => {
  expect(named).not.toBeNull();
  const [, major, minor] = named!;
  expect(lock.packages['']!.engines).toEqual({ node: `>=${major}.${minor}` });
  expect((JSON.parse(read('package.json')) as { engines: unknown }).engines).toEqual({
    node: `>=${major}.${minor}`,
  });
});

test("every package of the lockfile accepts the README's Node and the node@22 binary npm runs", () => {
  const versions = [`${named![1]}.${named![2]}.0`, lock.packages['node_modules/node']!.version!];
  expect(versions[1]).toMatch(/^22\./);
  const refusing = Object.entries(lock.packages).flatMap(([path, pkg]) => {
    const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (range === undefined) return [];
    return versions
      .filter((version) => !satisfies(version, range))
      .map((version) => `${path || 'package.json'} needs node ${range}, not ${version}`);
  });
  expect(refusing).toEqual([]);
});
