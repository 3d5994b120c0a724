/** test/support/test-sequencer.js: each tier's longest files first, every file kept. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const durations = JSON.parse(
  readFileSync(join(ROOT, 'test', 'support', 'test-durations.json'), 'utf8'),
) as Record<string, number>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LongestFirst = require('../support/test-sequencer.js') as new (options: object) => {
  sort(tests: object[]): { path: string }[];
};

const testOf = (path: string) => ({
  path: join(ROOT, path),
  duration: undefined,
  context: {
    config: {
      rootDir: ROOT,
      cacheDirectory: join(ROOT, 'node_modules', '.cache', 'no-such-jest-cache'),
      name: 'x',
    },
    hasteFS: { getSize: (p: string) => statSync(p).size },
  },
});

describe('the test sequencer', () => {
  it('lists only files that exist, each with a whole number of seconds', () => {
    for (const [path, seconds] of Object.entries(durations)) {
      expect([path, existsSync(join(ROOT, path))]).toEqual([path, true]);
      expect(Number.isInteger(seconds) && seconds >= 5).toBe(true);
    }
  });

  it('hands out the listed files longest first, then the others, and drops none', () => {
    const listed = Object.keys(durations).filter((p) => p.startsWith('test/e2e/'));
    const unlisted = ['test/e2e/smoke.test.ts', 'test/e2e/admin-help.test.ts'];
    const shuffled = [unlisted[0]!, ...listed.slice().reverse(), unlisted[1]!];
    const order = new LongestFirst({}).sort(shuffled.map(testOf)).map((t) => t.path.slice(ROOT.length + 1));
    // Longest first; files of the same duration in any order (Jest's own order among them).
    const first = order.slice(0, listed.length);
    expect(first.slice().sort()).toEqual(listed.slice().sort());
    const seconds = first.map((p) => durations[p]!);
    expect(seconds).toEqual(seconds.slice().sort((a, b) => b - a));
    expect(order.slice(listed.length).sort()).toEqual(unlisted.slice().sort());
  });
});
