/**
 * The clock rule (eslint.config.mjs): in lambdas/, the time is read, a pause taken and a wait
 * bounded only through the one clock, lambdas/shared/clock.ts. Linted with ESLint's Node API on
 * code that exists only here; and the tree itself has no wall-clock read outside the clock module.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import config from '../../eslint.config.mjs';

const root = join(__dirname, '..', '..');
// The project's own config, given as an object: Jest cannot load the .mjs file the way ESLint does.
const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });

/** The messages of the clock rule for `code` written in the file at `path` (from the root). */
async function clockErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: join(root, path) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('the clock rule', () => {
  it.each([
    ['lambdas/core/x.ts', 'export const at = new Date();'],
    ['lambdas/store/x.ts', 'export const at = new Date().toISOString();'],
    ['lambdas/domain/x.ts', 'export const ms = Date.now();'],
    ['lambdas/processor/x.ts', 'export const read: () => number = Date.now;'],
    ['lambdas/groups/x.ts', 'export const ms = Date.now() + 1000;'],
    ['lambdas/shared/x.ts', 'setTimeout(() => undefined, 10);'],
    ['lambdas/core/x.ts', 'export const t = setInterval(() => undefined, 10);'],
    ['lambdas/core/x.ts', 'globalThis.setTimeout(() => undefined, 10);'],
    [
      'lambdas/shared/x.ts',
      "import { setTimeout } from 'node:timers/promises';\nexport const s = setTimeout;",
    ],
    ['lambdas/shared/x.ts', "import { setTimeout as wait } from 'timers/promises';\nexport const s = wait;"],
    ['lambdas/shared/x.ts', "import timers from 'node:timers';\nexport const s = timers;"],
  ])('forbids, in %s, %s', async (path, code) => {
    expect(await clockErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['lambdas/core/x.ts', "import { clock } from '#shared/clock';\nexport const at = clock.now();"],
    ['lambdas/core/x.ts', "import { clock } from '#shared/clock';\nexport const ms = clock.nowMs();"],
    ['lambdas/core/x.ts', "import { sleep } from '#shared/clock';\nexport const s = sleep(10);"],
    // A given time is a value, not a read of the clock.
    ['lambdas/domain/x.ts', 'export const at = (iso: string) => new Date(iso);'],
    ['lambdas/domain/x.ts', 'export const ms = (iso: string) => Date.parse(iso);'],
    // The clock module itself, and what is not a function's code.
    ['lambdas/shared/clock.ts', 'export const ms = () => Date.now();\nsetTimeout(() => undefined, 1);'],
    ['lib/local/x.ts', 'export const at = new Date();'],
    ['test/unit/x.test.ts', 'export const ms = Date.now();'],
  ])('allows, in %s, %s', async (path, code) => {
    expect(await clockErrors(path, code)).toEqual([]);
  });
});

/** Every .ts file under `dir`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });

test('no file of lambdas/ but the clock module reads the wall clock or sets a timer', () => {
  const readers = filesUnder(join(root, 'lambdas'))
    .filter((file) => /new Date\(\)|\bDate\.now\b|\bset(Timeout|Interval)\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file));
  expect(readers).toEqual(['lambdas/shared/clock.ts']);
});
