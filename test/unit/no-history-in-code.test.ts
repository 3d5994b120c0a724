/**
 * The code and the README speak of the product, not of the project's history: no issue or defect
 * numbers in them (a test's name may keep its defect's description; docs/decisions.md records
 * where each decision came from).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const PLACES = ['lambdas', 'lib', 'contract', 'bin', 'scripts', 'client', 'README.md'];
const SKIP = new Set(['generated', 'node_modules', 'dist', 'fixtures']);
const HISTORY = /\b(?:issues?|defects?) \d+/i;

function* files(path: string): Generator<string> {
  if (statSync(path).isFile()) {
    if (/\.(?:ts|mjs|js|md)$/.test(path)) yield path;
    return;
  }
  for (const name of readdirSync(path)) if (!SKIP.has(name)) yield* files(join(path, name));
}

test('no issue or defect numbers in the code or the README', () => {
  const found = PLACES.flatMap((place) =>
    [...files(join(ROOT, place))].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          HISTORY.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    ),
  );
  expect(found).toEqual([]);
});

test('the pattern finds what it is for', () => {
  expect(['(issue 25, defect 4)', 'Issue 12: a port', 'defects 3']).toEqual(
    ['(issue 25, defect 4)', 'Issue 12: a port', 'defects 3'].filter((s) => HISTORY.test(s)),
  );
  expect(HISTORY.test('the issuer 25')).toBe(false);
});
