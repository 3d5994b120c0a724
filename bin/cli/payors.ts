/** `spay payor create`: payors with one saved card each, for the groups a tester builds. */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { RequestBody } from '../../client/index';
import { clientOf, loadSession } from './session';
import { fittedTable } from './layout';
import { cardTypeOf, maskNumber } from '../../lambdas/domain/cards';

interface CreateOptions {
  email?: string;
  card: string;
  customer?: string;
  count: string;
  quiet?: boolean;
}

export function payorCommands(program: Command): void {
  const payor = program.command('payor').description('payors and their saved cards');
  payor
    .command('create')
    .description('create payors, each with one saved card (the default), and print their profile ids')
    .option('--email <address>', 'the payor’s e-mail (receipts and notices go there)')
    .option('--card <number>', 'card number (sandbox test cards decide the outcome)', '4111111111111111')
    .option('--customer <id>', 'customerAccountId (unique per merchant; default: a new one)')
    .option('--count <n>', 'how many payors (customer ids get -1, -2...)', '1')
    .option('-q, --quiet', 'print only the profile ids, one a line (for scripts)')
    .action(async (options: CreateOptions) => {
      // The brand by the service's own rule; the number is never printed whole.
      const accountType = cardTypeOf(options.card);
      if (!accountType)
        throw new Error(`--card ${maskNumber(options.card)}: not a card number of a brand the service takes`);
      const count = Number(options.count);
      if (!/^\d+$/.test(options.count) || count < 1)
        throw new Error(`--count ${options.count}: not a number of payors (1 or more)`);
      const session = loadSession();
      const api = clientOf(session);
      const base = options.customer ?? `tester-${randomBytes(4).toString('hex')}`;
      const rows: string[][] = [];
      try {
        for (let i = 1; i <= count; i += 1) {
          const body: RequestBody<'CreatePayor'> = {
            customerAccountId: count === 1 ? base : `${base}-${i}`,
            ...(options.email && { email: options.email }),
            paymentMethod: {
              accountType,
              cardNumber: options.card,
              expiryMonth: 12,
              expiryYear: new Date().getUTCFullYear() + 4,
              billingAddress: {
                line1: '742 Evergreen Terrace',
                city: 'Springfield',
                state: 'OR',
                postalCode: '97475',
                country: 'US',
              },
            },
          };
          const created = await api.createPayor(session.mid, body);
          const method = created.savedPaymentMethods.find((m) => m.isDefault);
          rows.push([
            created.customerAccountId ?? '',
            created.email ?? '',
            method?.maskedAccountNumber ?? '',
            `${created.payorId}/${created.defaultPaymentMethodId}`,
          ]);
        }
      } finally {
        // Those created before a failure too: their profile ids are what the tester goes on with.
        if (rows.length > 0) print(rows, options.quiet === true);
      }
    });
}

/** The created payors: their profile ids alone (--quiet), else a table and the ids below it. */
function print(rows: string[][], quiet: boolean): void {
  if (quiet) return void console.log(rows.map((r) => r[3]).join('\n'));
  // The profile ids (73 characters, what a payments file names) on lines of their own: the table
  // fits 80 columns.
  console.log(
    fittedTable(
      ['#', 'Customer', 'E-mail', 'Card'],
      rows.map((r, i) => [i + 1, ...r.slice(0, 3)]),
      // The two share the narrowing: each down to a middle width, then further.
      [
        { column: 2, min: 30, how: 'wrap' },
        { column: 1, min: 16, how: 'wrap' },
        { column: 2, min: 16, how: 'wrap' },
        { column: 1, min: 12, how: 'wrap' },
      ],
    ),
  );
  console.log('Profile ids (what a payments file names):');
  for (const [i, r] of rows.entries()) console.log(`${i + 1} ${r[3]}`);
}
