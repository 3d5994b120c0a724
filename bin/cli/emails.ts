/** `spay emails`: the e-mails in the local runtime's SES store (aws-ses-v2-local `GET /store`). */
import type { Command } from 'commander';
import { loadSession } from './session';
import { print } from './layout';
import { readable } from './views';
import { sleep } from '../../lambdas/shared/clock';

interface StoredEmail {
  at: number;
  subject: string;
  destination: { to: string[] };
}

/** How long `--wait-for` waits: receipts follow the test clock within a minute. */
const WAIT_MS = 120_000;

export function emailCommands(program: Command): void {
  program
    .command('emails')
    .description('the e-mails sent (local runtime: its SES store), newest last')
    .option('--to <address>', 'only those sent to this address')
    .option('--wait-for <n>', 'wait (up to 2 minutes) until there are at least n of them')
    .action(async (options: { to?: string; waitFor?: string }) => {
      const wanted = Number(options.waitFor ?? 0);
      if (!/^\d+$/.test(options.waitFor ?? '0'))
        throw new Error(`--wait-for ${options.waitFor}: not a number of e-mails`);
      const session = loadSession();
      const sesUrl = session.sesUrl;
      if (!sesUrl) throw new Error('e-mails are shown for the local runtime only (its SES store)');
      const to = options.to?.toLowerCase();
      const read = async (): Promise<StoredEmail[]> => {
        const response = await fetch(`${sesUrl}/store`);
        if (!response.ok) throw new Error(`${sesUrl}/store: HTTP ${response.status}`);
        const { emails } = (await response.json()) as { emails: StoredEmail[] };
        return emails.filter((e) => !to || e.destination.to.some((address) => addressOf(address) === to));
      };
      const until = Date.now() + WAIT_MS;
      let shown = await read();
      if (shown.length < wanted)
        print(
          `Waiting up to 2 minutes for ${wanted} e-mail${wanted === 1 ? '' : 's'}` +
            `${to ? ` to ${to}` : ''} (${shown.length} so far)...`,
        );
      while (shown.length < wanted && Date.now() < until) {
        await sleep(1000);
        shown = await read();
      }
      if (shown.length < wanted)
        print(`Gave up after 2 minutes: ${shown.length} of the ${wanted} e-mails arrived.`);
      // One e-mail to a block: its time and addresses, then its subject indented (a table of the
      // three is wider than a terminal's 80 columns).
      for (const e of shown)
        print(
          `${readable(new Date(e.at * 1000).toISOString())}  to ${e.destination.to.join(', ')}\n  ${e.subject}`,
        );
      console.log(`${shown.length} e-mail${shown.length === 1 ? '' : 's'}`);
    });
}

/** The address of a recipient as written (`ann@school.org` or `Ann <ann@school.org>`), lower case. */
const addressOf = (recipient: string): string =>
  (/<([^<>]*)>\s*$/.exec(recipient)?.[1] ?? recipient).trim().toLowerCase();
