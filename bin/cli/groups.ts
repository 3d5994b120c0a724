/**
 * `spay group ...` and `spay groups`: create a group from a file of payments, process it (non-
 * production) and watch it, show its outcomes and its report (JSON or CSV), reverse it, list groups,
 * show its execution steps.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { readPaymentsFile, sendingFile } from './payments-file';
import { clientOf, loadSession } from './session';
import { executionSteps } from './steps';
import { fittedTable, print, table } from './layout';
import {
  FIRST_ROWS,
  groupCard,
  groupTable,
  outcomeTable,
  outcomesOf,
  paymentsOf,
  readable,
  summaryLine,
  watchProcessing,
  watchReversal,
} from './views';

/** An execution's name: the last part of its ARN. */
const executionName = (arn: string | undefined): string => arn?.split(':').at(-1) ?? '';

const tomorrow = (): string => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

interface CreateOptions {
  file: string;
  date: string;
  hour: string;
  location: string;
  quiet?: boolean;
  idempotencyKey?: string;
}

/** A `--timeout <minutes>` option's value: a positive number of minutes. */
function minutesOf(value: string): number {
  const minutes = Number(value);
  if (!(value.trim() !== '' && minutes > 0)) throw new Error(`--timeout ${value}: not a number of minutes`);
  return minutes;
}

export function groupCommands(program: Command): void {
  const group = program.command('group').description('payment groups');

  group
    .command('create')
    .description('create a group from a CSV or JSON file of payments')
    .requiredOption(
      '-f, --file <file>',
      'payments: .csv with a header (profileId,amount,orderId,...) or .json',
    )
    .option('--date <yyyy-mm-dd>', 'schedule date (UTC)', tomorrow())
    .option('--hour <0-23>', 'schedule hour (UTC)', '14')
    .option('--location <id>', 'locationId', '1')
    .option('-q, --quiet', 'print only the group id (for scripts)')
    .option(
      '--idempotency-key <key>',
      'the key an earlier run gave up with: the service answers as it did to that run, never creating twice',
    )
    .action(async (options: CreateOptions) => {
      const session = loadSession();
      const source = readPaymentsFile(options.file);
      const created = await sendingFile(source, () =>
        clientOf(session).createGroup(
          session.mid,
          {
            servicePayId: session.mid,
            scheduleDate: options.date,
            scheduleHour: Number(options.hour),
            locationId: Number(options.location),
            payments: source.payments,
          },
          { ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }) },
        ),
      );
      if (options.quiet) return console.log(created.paymentGroupId);
      console.log(groupCard(created));
    });

  group
    .command('process <groupId>')
    .description('process the group now (non-production, test MIDs) and watch it until it is processed')
    .option('--no-watch', 'start it and return')
    .option('--timeout <minutes>', 'stop watching after this long', '30')
    .option('--all', `every payment's row (the first ${FIRST_ROWS} otherwise)`)
    .action(async (groupId: string, options: { watch: boolean; timeout: string; all?: boolean }) => {
      const minutes = minutesOf(options.timeout);
      const session = loadSession();
      const api = clientOf(session);
      const started = await api.processGroup(session.mid, groupId);
      const entry = started.triggeredGroups[0];
      if (entry?.error) throw new Error(entry.error);
      // The execution's name (its ARN is wider than a terminal; `spay group steps` finds it).
      print(`Started execution ${executionName(entry?.executionArn)}`);
      if (!options.watch) return;
      const processed = await watchProcessing(api, session.mid, groupId, 500, minutes * 60_000);
      const payments = await paymentsOf(api, session.mid, groupId);
      console.log(outcomeTable(payments, options.all));
      print(`Group ${processed.status}: ${summaryLine(outcomesOf(payments))}`);
      if (processed.status === 'processing') {
        print(`Still processing; \`spay group show ${groupId}\` shows it later`);
      }
    });

  group
    .command('retry-now')
    .description(
      "run every retry the merchant's groups have scheduled now, as their slots would (non-production, test MIDs)",
    )
    .action(async () => {
      const session = loadSession();
      const started = await clientOf(session).retryMerchant(session.mid);
      // One line per group: its id, then what happened (the execution's name holds the id again).
      for (const entry of started.triggeredGroups)
        print(`${entry.paymentGroupId}: ${entry.error ?? 'retry round started'}`);
      if (started.more) print('More groups wait for a retry round: run `spay group retry-now` again');
      // Nothing started: why (a run waiting for its settlement cut-off, none scheduled, ...).
      if (started.totalTriggered === 0)
        return print(
          started.message ? `No retry round started: ${started.message}` : 'No retry round started',
        );
      print('`spay group show <id>` shows each payment once its round is done (within a minute)');
    });

  group
    .command('show <groupId>')
    .description("the group and each payment's outcome")
    .option('--all', `every payment's row (the first ${FIRST_ROWS} otherwise)`)
    .action(async (groupId: string, options: { all?: boolean }) => {
      const session = loadSession();
      const api = clientOf(session);
      const found = await api.getGroup(session.mid, groupId);
      const payments = await paymentsOf(api, session.mid, groupId);
      console.log(groupCard(found));
      console.log(outcomeTable(payments, options.all));
      console.log(summaryLine(outcomesOf(payments)));
    });

  group
    .command('reverse <groupId>')
    .description("void-or-refund the group's approved payments (void before settlement, refund after)")
    .option('--timeout <minutes>', 'stop watching a background reversal after this long', '30')
    .option('--all', `every payment's row (the first ${FIRST_ROWS} otherwise)`)
    .action(async (groupId: string, options: { timeout: string; all?: boolean }) => {
      const minutes = minutesOf(options.timeout);
      const session = loadSession();
      const api = clientOf(session);
      const answer = await api.voidOrRefundGroup(session.mid, groupId);
      let still = false;
      if ('executionArn' in answer) {
        print(`Reversing in the background: execution ${executionName(answer.executionArn)}`);
        const found = await api.getGroup(session.mid, groupId);
        const watched = await watchReversal(
          api,
          session.mid,
          groupId,
          found.paymentCount,
          1000,
          minutes * 60_000,
        );
        still = watched?.status !== 'done';
      }
      const payments = await paymentsOf(api, session.mid, groupId);
      console.log(outcomeTable(payments, options.all));
      const summary = (await api.getGroup(session.mid, groupId)).voidOrRefundSummary;
      const counts = 'voidedCount' in answer ? answer : summary;
      if (counts) {
        const { voidedCount, refundedCount, refundScheduledCount, skippedCount, failedCount } = counts;
        print(
          `Voided ${voidedCount}, refunded ${refundedCount}, skipped ${skippedCount}, failed ${failedCount}` +
            (refundScheduledCount > 0
              ? `; ${refundScheduledCount} refund(s) scheduled for right after the settlement cut-off (inside the void margin)`
              : ''),
        );
      }
      if (still)
        print(`Still reversing after ${minutes} minutes; \`spay group show ${groupId}\` shows it later`);
    });

  group
    .command('report <groupId>')
    .description("the group's counts and amounts; with --csv every payment as CSV (all pages)")
    .option('--csv', 'the CSV report: one row per payment, written to stdout or --out')
    .option('-o, --out <file>', 'with --csv: write the CSV to this file')
    .action(async (groupId: string, options: { csv?: boolean; out?: string }) => {
      const session = loadSession();
      const api = clientOf(session);
      if (options.csv) {
        const csv = await api.groupReportCsv(session.mid, groupId);
        if (options.out === undefined) return void process.stdout.write(csv);
        writeFileSync(options.out, csv);
        return console.log(`Wrote ${options.out}`);
      }
      if (options.out !== undefined) throw new Error('--out goes with --csv');
      const report = await api.groupReport(session.mid, groupId);
      const { counts: c, amounts: a } = report;
      print(`Group ${report.paymentGroupId}: ${report.status}`);
      console.log(
        table(
          ['', 'Payments', 'Amount'],
          [
            ['Scheduled', c.payments, a.scheduled.toFixed(2)],
            ['Approved', c.approved, a.approved.toFixed(2)],
            ['  of which partial', c.partial, ''],
            ['Declined', c.declined, a.declined.toFixed(2)],
            ['  category 1 / 2', `${c.declinedCategory1} / ${c.declinedCategory2}`, ''],
            ['Failed', c.failed, a.failed.toFixed(2)],
            // A returned debit leaves Approved; a disputed charge stays in it.
            ['Returned', c.returned, a.returned.toFixed(2)],
            ['Disputed', c.disputed, a.disputed.toFixed(2)],
            ['Voided', c.voided, a.voided.toFixed(2)],
            ['Refunded', c.refunded, a.refunded.toFixed(2)],
            ['Retry scheduled', c.retryScheduled, ''],
            ['Recovered by a retry', c.recovered, ''],
            ['Deleted', c.deleted, ''],
          ],
        ),
      );
    });

  group
    .command('steps <groupId>')
    .description("the steps of the group's processing execution, with their times")
    .action(async (groupId: string) => {
      const session = loadSession();
      const found = await clientOf(session).getGroup(session.mid, groupId);
      if (!found.executionArn) throw new Error('the group has not been processed yet');
      const steps = await executionSteps(session, found.executionArn);
      console.log(
        fittedTable(
          ['#', 'Step', 'Type', 'Entered', 'Took'],
          steps.map((s, i) => [
            i + 1,
            s.name,
            s.type,
            readable(s.enteredAt),
            s.tookMs === undefined ? 'running' : `${(s.tookMs / 1000).toFixed(1)} s`,
          ]),
          [
            { column: 1, min: 12, how: 'wrap' },
            { column: 3, min: 12, how: 'wrap' },
          ],
        ),
      );
    });

  program
    .command('groups')
    .description("the merchant's groups (not deleted), by slot")
    .option('--date <yyyy-mm-dd>', 'only groups scheduled on this date')
    .action(async (options: { date?: string }) => {
      const session = loadSession();
      // Every page of them, not the first 500 alone.
      const groups = [];
      const pages = clientOf(session).allGroups(session.mid, {
        ...(options.date && { date: options.date }),
        pageSize: 500,
      });
      for await (const group of pages) groups.push(group);
      console.log(groupTable(groups));
    });
}
