/** `spay return-rates`: the merchant's Nacha return rates of its bank debits, against the limits. */
import type { Command } from 'commander';
import type { Schemas } from '../../client/index';
import { table } from './layout';
import { clientOf, loadSession } from './session';

type ReturnRates = Schemas['ReturnRates'];

const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;

/** One row per rate Nacha watches, a line of what the window holds and the worst status. */
function returnRatesText(r: ReturnRates): string {
  const rows = (['unauthorized', 'administrative', 'overall'] as const).map((kind) => [
    kind,
    r[kind].count,
    percent(r[kind].rate),
    percent(r[kind].limit),
    r[kind].status,
  ]);
  return [
    `${r.debitCount} bank debits in the last ${r.windowDays} UTC days (by each debit's date)`,
    table(['Returns', 'Count', 'Rate', 'Limit', 'Status'], rows),
    `Status: ${r.status}${r.status === 'ok' ? '' : ' (docs/product.md "Return rates" says what to do)'}`,
  ].join('\n');
}

export function returnRateCommands(program: Command): void {
  program
    .command('return-rates')
    .description("the merchant's bank-debit return rates against Nacha's limits (last 60 days)")
    .option('--json', 'print the API’s answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const session = loadSession();
      const rates = await clientOf(session).getReturnRates(session.mid);
      console.log(options.json ? JSON.stringify(rates, null, 2) : returnRatesText(rates));
    });
}
