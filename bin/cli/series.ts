/**
 * `spay series ...`: create a series of recurring groups from a file of payments, list the
 * merchant's series, show one with its next occurrences in local time and UTC, cancel one.
 */
import type { Command } from 'commander';
import type { Schemas } from '../../client/index';
import { readPaymentsFile, sendingFile } from './payments-file';
import { clientOf, loadSession } from './session';
import { fittedTable, print, screenWidth } from './layout';
import { readable } from './views';

type Series = Schemas['Series'];

interface CreateOptions {
  file: string;
  zone: string;
  hour: string;
  start: string;
  frequency: string;
  interval: string;
  count?: string;
  end?: string;
  location: string;
  noticeDays: string;
  quiet?: boolean;
  idempotencyKey?: string;
}

/** A series' rule in words: `monthly ×1 at 09:00 America/New_York from 2030-09-15, 10 times`. */
const ruleOf = (s: Series): string =>
  `${s.frequency} ×${s.interval} at ${String(s.localHour).padStart(2, '0')}:00 ${s.timeZone} from ${s.startDate}` +
  (s.endDate ? ` until ${s.endDate}` : `, ${s.occurrenceCount} times`);

/**
 * The series, one row each: the id whole (what the commands take), the status, the rule wrapped
 * over lines within 80 columns (`spay series show` gives the rest).
 */
export function seriesTable(series: Series[], width = screenWidth()): string {
  return fittedTable(
    ['Series', 'Status', 'Rule'],
    series.map((s) => [s.seriesId, s.status, ruleOf(s)]),
    [{ column: 2, min: 16, how: 'wrap' }],
    width,
  );
}

/** One series as a list of its fields, within 80 columns. */
export function seriesCard(s: Series, width = screenWidth()): string {
  return fittedTable(
    ['Series', s.seriesId],
    [
      ['Status', s.status],
      ['Rule', ruleOf(s)],
      ['Groups created', `${s.createdCount} of ${s.occurrenceCount}, each ${s.noticeDays} days ahead`],
      ['Payments', `${s.paymentCount} a group, ${s.totalAmount.toFixed(2)} in all`],
    ],
    [{ column: 1, min: 20, how: 'wrap' }],
    width,
  );
}

/** A slot as the CLI writes it: `2030-06-03 14h` (UTC). */
const slot = (o: { scheduleDate: string; scheduleHour: number }) =>
  `${o.scheduleDate} ${String(o.scheduleHour).padStart(2, '0')}h`;

/** The next occurrences, each in local time (with its offset) and as its group's UTC slot. */
export function nextOccurrencesTable(series: Series, width = screenWidth()): string {
  return fittedTable(
    ['#', `Local time (${series.timeZone})`, 'Slot (UTC)', 'Group created (UTC)'],
    series.nextOccurrences.map((o) => [
      o.occurrence,
      o.localTime.replace('T', ' '),
      slot(o),
      readable(o.createAt).replace(/:\d\d UTC$/, ''),
    ]),
    [
      { column: 1, min: 14, how: 'wrap' },
      { column: 3, min: 12, how: 'wrap' },
    ],
    width,
  );
}

/** The occurrences whose turn has come: their group, or skipped. */
export function pastOccurrencesTable(series: Series, width = screenWidth()): string {
  return fittedTable(
    ['#', 'Local time', 'Status', 'Group'],
    (series.occurrences ?? []).map((o) => [
      o.occurrence,
      o.localTime.replace('T', ' '),
      o.status,
      o.paymentGroupId ?? '',
    ]),
    [{ column: 1, min: 12, how: 'wrap' }],
    width,
  );
}

export function seriesCommands(program: Command): void {
  const series = program.command('series').description('series of recurring groups in a time zone');

  series
    .command('create')
    .description('create a series from a CSV or JSON file of payments')
    .requiredOption('-f, --file <file>', 'payments: .csv with a header (profileId,amount,...) or .json')
    .requiredOption('--zone <iana>', 'IANA time zone, e.g. America/New_York')
    .requiredOption('--start <yyyy-mm-dd>', 'local date of the first occurrence')
    .option('--hour <0-23>', 'local hour', '9')
    .option('--frequency <weekly|monthly>', 'weekly or monthly', 'monthly')
    .option('--interval <1-12>', 'every how many weeks or months', '1')
    .option('--count <n>', 'number of occurrences (or --end)')
    .option('--end <yyyy-mm-dd>', 'last local date an occurrence may fall on (or --count)')
    .option('--location <id>', 'locationId', '1')
    .option('--notice-days <0-30>', "days before its slot each occurrence's group is created", '3')
    .option('-q, --quiet', 'print only the series id (for scripts)')
    .option(
      '--idempotency-key <key>',
      'the key an earlier run gave up with: the service answers as it did to that run, never creating twice',
    )
    .action(async (options: CreateOptions) => {
      const session = loadSession();
      const source = readPaymentsFile(options.file);
      const key = { ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }) };
      const created = await sendingFile(source, () =>
        clientOf(session).createSeries(
          session.mid,
          {
            timeZone: options.zone,
            localHour: Number(options.hour),
            startDate: options.start,
            frequency: options.frequency as 'weekly' | 'monthly',
            interval: Number(options.interval),
            ...(options.count !== undefined && { count: Number(options.count) }),
            ...(options.end !== undefined && { endDate: options.end }),
            locationId: Number(options.location),
            noticeDays: Number(options.noticeDays),
            payments: source.payments,
          },
          key,
        ),
      );
      if (options.quiet) return console.log(created.seriesId);
      console.log(seriesCard(created));
      console.log('Next occurrences');
      console.log(nextOccurrencesTable(created));
    });

  series
    .command('list')
    .description("the merchant's series")
    .action(async () => {
      const session = loadSession();
      const found = await clientOf(session).listSeries(session.mid);
      console.log(seriesTable(Array.isArray(found) ? found : found.items));
    });

  series
    .command('show <seriesId>')
    .description('a series, its next occurrences in local time and UTC, and the groups created')
    .action(async (seriesId: string) => {
      const session = loadSession();
      const found = await clientOf(session).getSeries(session.mid, seriesId);
      console.log(seriesCard(found));
      console.log('Next occurrences');
      console.log(nextOccurrencesTable(found));
      if ((found.occurrences ?? []).length > 0) {
        console.log('Occurrences whose turn has come');
        console.log(pastOccurrencesTable(found));
      }
    });

  series
    .command('cancel <seriesId>')
    .description('cancel the series: no more groups, its pending groups deleted')
    .action(async (seriesId: string) => {
      const session = loadSession();
      await clientOf(session).cancelSeries(session.mid, seriesId);
      print(`Series ${seriesId} canceled`);
    });
}
