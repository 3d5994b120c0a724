/**
 * The README's walk-through works as written: its bash blocks run, in order, against this tier's
 * runtime (only the two addresses are swapped), and every step succeeds.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

test('the README walk-through runs start to finish', async () => {
  const readme = readFileSync(resolve(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Walk-through (local)'),
    readme.indexOf('## Sandbox processor'),
  );
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const script = ['set -euo pipefail', ...blocks]
    .join('\n')
    .replaceAll('http://127.0.0.1:3000', process.env.E2E_BASE_URL!)
    .replaceAll('http://127.0.0.1:8005', process.env.E2E_SES_URL!)
    // Other files share this runtime and own the current hour's groups: tick a slot long past.
    .replaceAll('$(date -u +%FT%H:00:00Z)', '2000-01-01T00:00:00Z');
  // The refund step waits for a sale's settlement cut-off (8 s apart in this tier).
  const { stdout } = await run('bash', ['-c', script], { timeout: 90_000 });
  expect(stdout).toContain('"maskedAccountNumber": "************1111"');
  expect(stdout).toContain('"isDuplicate": true');
  expect(stdout).toContain('"status": "Voided"');
  expect(stdout).toContain('"status": "processed"');
  // Void before the settlement cut-off, refund after it (the e2e runtime's cut-offs are 8 s apart).
  expect(stdout).toMatch(/"voidedCount": 3|"refundedCount": 3/);
  expect(stdout).not.toContain('4111111111111111');
  // The refund step runs (issue 12): 10.00 of the 40.00 sale refunded after its cut-off.
  expect(stdout).toContain('"availableRefundAmount": 30');
  expect(stdout).toContain('"refundCount": 1');
  // Dates work with BSD (macOS) date too: GNU-only `date -d` only as the fallback after `||`.
  expect(section).not.toMatch(/^(?!.*\|\| date).*\bdate\b[^\n]* -d /m);
}, 120_000);
