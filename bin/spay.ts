#!/usr/bin/env -S npx tsx
/**
 * The tester CLI (`npm run cli -- <command>`, or `spay` once linked), built on the TypeScript
 * client: log in, create payors and groups, process a group and watch it, read its outcomes,
 * reverse it, settle sales now (test clock), read the e-mails sent and the return rates. docs/integrating.md "Tester CLI".
 */
import { Command } from 'commander';
import { ApiError } from '../client/index';
import { emailCommands } from './cli/emails';
import { groupCommands } from './cli/groups';
import { listenCommands } from './cli/listen';
import { loginCommands } from './cli/login';
import { payorCommands } from './cli/payors';
import { returnRateCommands } from './cli/return-rates';
import { saleCommands } from './cli/sales';
import { seriesCommands } from './cli/series';
import { wrapLines } from './cli/layout';

const program = new Command('spay').description('Scheduled Payments tester CLI').showHelpAfterError();
loginCommands(program);
payorCommands(program);
groupCommands(program);
seriesCommands(program);
returnRateCommands(program);
saleCommands(program);
emailCommands(program);
listenCommands(program);

/** An API error as a person reads it: the status, the message, and each field's problem. */
function report(error: unknown): string {
  if (!(error instanceof ApiError)) return `Error: ${error instanceof Error ? error.message : String(error)}`;
  const lines = [`Error ${error.status || 'network'}: ${error.message}`];
  // The key matters when the request may have been done (no answer, a 5xx, one still running, a
  // rate limit): sent again with it, it cannot be done twice. A refusal is final.
  const unsure = error.status === 0 || error.status >= 500 || error.status === 409 || error.status === 429;
  if (error.idempotencyKey && unsure)
    lines.push(
      `  sent with Idempotency-Key ${error.idempotencyKey}: it may have been done. Run it again with ` +
        `--idempotency-key ${error.idempotencyKey} (group create, series create) and the service ` +
        'answers as it did then; anything else, look before running it again',
    );
  for (const problem of error.errors) lines.push(`  ${problem.field}: ${problem.message}`);
  return lines.join('\n');
}

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(wrapLines(report(error)));
  process.exitCode = 1;
});
