// Refreshes test/support/test-durations.json (the order test/support/test-sequencer.js gives each
// tier's files: the longest first) from the reports of `jest --json --outputFile=<file>` runs:
//   npm run test:durations -- e2e.json integration.json infra.json
// Files of under 5 s are left out: their order matters little, and they run after the listed ones.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const target = resolve(root, 'test/support/test-durations.json');
const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error('usage: npm run test:durations -- <jest --json report> [...]');
  process.exit(2);
}
const seconds = { ...JSON.parse(readFileSync(target, 'utf8')) };
for (const report of reports) {
  for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults) {
    const name = relative(root, file.name);
    const s = Math.round((file.endTime - file.startTime) / 1000);
    if (s >= 5) seconds[name] = s;
    else delete seconds[name];
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([, a], [, b]) => b - a));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files in ${relative(root, target)}`);
