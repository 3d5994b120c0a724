/**
 * The order in which Jest hands a tier's files to its workers: the longest first.
 *
 * Jest's own sequencer orders by the durations of earlier runs kept in its cache, and without a
 * cache (a fresh clone, as CI runs) by file size. By size, a long file with a short text (the crash
 * test: 2.5 minutes, a tenth of the largest file's size) starts late and runs alone at the end of
 * its tier while the other workers wait. `test-durations.json` holds each slow file's usual seconds
 * (files of under 5 s are left out); `npm run test:durations -- <jest --json output>` refreshes it.
 * A file without a cached or listed duration comes after the listed ones, by size as before.
 *
 * Only the order changes: every file runs, each on a worker of its own tier.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { relative } = require('node:path');
const listed = require('./test-durations.json');

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const seconds = (test) => listed[relative(test.context.config.rootDir, test.path)];
    const known = sorted.filter((t) => seconds(t) !== undefined);
    const rest = sorted.filter((t) => seconds(t) === undefined);
    known.sort((a, b) => seconds(b) - seconds(a));
    return [...known, ...rest];
  }
}

module.exports = LongestFirst;
