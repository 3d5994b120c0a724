/**
 * The order in which Jest hands a tier's files to its workers: the longest first, with the files
 * that mostly wait spread among the others.
 *
 * Jest's own sequencer orders by the durations of earlier runs kept in its cache, and without a
 * cache (a fresh clone, as CI runs) by file size. By size, a long file with a short text (the crash
 * test: 2.5 minutes, a tenth of the largest file's size) starts late and runs alone at the end of
 * its tier while the other workers wait. `test-durations.json` holds each slow file's usual seconds
 * (files of under 5 s are left out); `npm run test:durations -- <jest --json output>` refreshes it.
 * A file without a cached or listed duration comes after the listed ones, by size as before.
 *
 * WAITING lists the e2e files that spend most of their time waiting (settlement cut-offs, retry
 * schedules, deliveries): alone on an idle machine (the run's set-up left out), half a core or less. In the
 * longest-first order they came next to each other, and three of them on the three workers left
 * the two cores a third busy for half a minute, twice a run. Each now follows two of the others.
 *
 * Only the order changes: every file runs, each on a worker of its own tier.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { relative } = require('node:path');
const listed = require('./test-durations.json');

const WAITING = new Set([
  'test/e2e/notifications.test.ts', // 27 s for about 5 CPU-s
  'test/e2e/webhooks-group-life.test.ts', // 35 s for 7 CPU-s
  'test/e2e/money-safety.test.ts', // 20 s for 2 CPU-s
  'test/e2e/transactions.test.ts', // 17 s for 4 CPU-s
  'test/e2e/group-report.test.ts', // 15 s for 2 CPU-s
  'test/e2e/processing-gates.test.ts', // 11 s for 4 CPU-s
  'test/e2e/webhooks.test.ts', // 22 s for 11 CPU-s
]);
/** Busy files handed out before each waiting one. */
const BUSY_PER_WAITING = 2;

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const name = (test) => relative(test.context.config.rootDir, test.path);
    const seconds = (test) => listed[name(test)];
    const known = sorted.filter((t) => seconds(t) !== undefined);
    const rest = sorted.filter((t) => seconds(t) === undefined);
    known.sort((a, b) => seconds(b) - seconds(a));
    const busy = known.filter((t) => !WAITING.has(name(t)));
    const waiting = known.filter((t) => WAITING.has(name(t)));
    const order = [];
    while (busy.length > 0 || waiting.length > 0) {
      order.push(...busy.splice(0, BUSY_PER_WAITING));
      if (waiting.length > 0) order.push(waiting.shift());
    }
    return [...order, ...rest];
  }
}

module.exports = Object.assign(LongestFirst, { WAITING, BUSY_PER_WAITING });
