/** test/support/test-sequencer.js: each tier's longest files first, the waiting ones spread, every file kept. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const durations = JSON.parse(
  readFileSync(join(ROOT, 'test', 'support', 'test-durations.json'), 'utf8'),
) as Record<string, number>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LongestFirst = require('../support/test-sequencer.js') as {
  new (options: object): { sort(tests: object[]): { path: string }[] };
  WAITING: Set<string>;
  BUSY_PER_WAITING: number;
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

  it('hands out the listed files longest first, each waiting file after two busy ones, then the others, and drops none', () => {
    const listed = Object.keys(durations).filter((p) => p.startsWith('test/e2e/'));
    const unlisted = ['test/e2e/smoke.test.ts', 'test/e2e/admin-help.test.ts'];
    const shuffled = [unlisted[0]!, ...listed.slice().reverse(), unlisted[1]!];
    const order = new LongestFirst({}).sort(shuffled.map(testOf)).map((t) => t.path.slice(ROOT.length + 1));
    const first = order.slice(0, listed.length);
    expect(first.slice().sort()).toEqual(listed.slice().sort());
    expect(order.slice(listed.length).sort()).toEqual(unlisted.slice().sort());
    // Longest first among the busy files and among the waiting ones (equal durations in Jest's order).
    const waits = (p: string) => LongestFirst.WAITING.has(p);
    for (const part of [first.filter(waits), first.filter((p) => !waits(p))]) {
      const seconds = part.map((p) => durations[p]!);
      expect(seconds).toEqual(seconds.slice().sort((a, b) => b - a));
    }
    // Every waiting file is listed, and comes after two busy files of its own.
    expect([...LongestFirst.WAITING].filter((p) => !listed.includes(p))).toEqual([]);
    const pattern = first.map((p) => (waits(p) ? 'w' : 'b')).join('');
    const turn = `${'b'.repeat(LongestFirst.BUSY_PER_WAITING)}w`;
    expect(pattern.startsWith(turn.repeat(LongestFirst.WAITING.size))).toBe(true);
  });
});
