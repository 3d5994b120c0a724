/** `spay emails`: the e-mails in the local runtime's SES store (aws-ses-v2-local `GET /store`). */
import type { Command } from 'commander';
import { loadSession } from './session';
import { readable, table } from './views';

interface StoredEmail {
  at: number;
  subject: string;
  destination: { to: string[] };
}

export function emailCommands(program: Command): void {
  program
    .command('emails')
    .description('the e-mails sent (local runtime: its SES store), newest last')
    .option('--to <address>', 'only those sent to this address')
    .action(async (options: { to?: string }) => {
      const session = loadSession();
      if (!session.sesUrl) throw new Error('e-mails are shown for the local runtime only (its SES store)');
      const response = await fetch(`${session.sesUrl}/store`);
      if (!response.ok) throw new Error(`${session.sesUrl}/store: HTTP ${response.status}`);
      const { emails } = (await response.json()) as { emails: StoredEmail[] };
      const to = options.to?.toLowerCase();
      const shown = emails.filter(
        (e) => !to || e.destination.to.some((address) => address.toLowerCase().includes(to)),
      );
      console.log(
        table(
          ['Sent', 'To', 'Subject'],
          shown.map((e) => [
            readable(new Date(e.at * 1000).toISOString()),
            e.destination.to.join(', '),
            e.subject,
          ]),
        ),
      );
      console.log(`${shown.length} e-mail${shown.length === 1 ? '' : 's'}`);
    });
}
