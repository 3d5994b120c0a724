/**
 * The tester CLI as a person uses it: typed into a shell under tmux (a private server socket, a
 * 80×50 window: every line a command prints fits 80 columns), the screen read back with
 * capture-pane. Its own runtime: settlement cut-offs a day apart and hours away
 * (farSettlementSeconds), so that only the test clock (`spay settle`) can send the group's receipts
 * and turn its reversal into refunds; processing polls for settlement every 2 s instead of 60.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ScheduledPaymentsClient } from '../../client/index';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { cardInput, checkingInput, groupInput } from '#support/fixtures/inputs';
import { farSettlementSeconds } from '#support/settlement-timing';
import { sleep } from '#shared/clock';

const ROOT = resolve(__dirname, '..', '..');
const MID = '32350000001';
const tomorrowDate = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const SOCKET = `spay-cli-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

let runtime: LocalRuntimeProcess | undefined;
let home: string;

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-cli',
    // Not an hour: an hour's cut-off between the charges and `spay settle` would leave nothing to settle.
    env: {
      SANDBOX_SETTLEMENT_SECONDS: farSettlementSeconds(),
      SETTLEMENT_POLL_SECONDS: '2',
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  home = mkdtempSync(join(tmpdir(), 'spay-home-'));
  tmux(
    'new-session',
    '-d',
    '-s',
    'cli',
    '-x',
    '80',
    '-y',
    '50',
    '-c',
    home,
    '-e',
    `SPAY_HOME=${home}`,
    '-e',
    `PATH=${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    '-e',
    'PS1=$ ',
    'bash --norc --noprofile',
  );
  // The commands as a tester types them from a checkout: `npm run cli -- ...` in the repository.
  type(`cd ${ROOT}`);
}, 120_000);

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(home, { recursive: true, force: true });
  await runtime?.stop();
});

function type(line: string): void {
  tmux('send-keys', '-t', 'cli', '-l', line);
  tmux('send-keys', '-t', 'cli', 'Enter');
}

/** The whole scrollback as plain text. */
const screen = (): string => tmux('capture-pane', '-p', '-J', '-t', 'cli', '-S', '-', '-E', '-');

async function waitForScreen(pattern: RegExp, ms = 20_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > until) throw new Error(`the screen never showed ${pattern}:\n${text}`);
    await sleep(250);
  }
}

let commands = 0;

/**
 * Types a command and waits until it has finished; answers what it printed. The markers around it
 * are printed by printf from pieces, so the typed line itself never matches them.
 */
async function run(line: string, ms?: number): Promise<string> {
  const n = (commands += 1);
  type(`printf '[%s %s]\\n' start ${n}; ${line}; printf '[%s %s %s]\\n' done ${n} $?`);
  const text = await waitForScreen(new RegExp(`^\\[done ${n} \\d+\\]$`, 'm'), ms);
  const output = text.slice(text.lastIndexOf(`[start ${n}]`), text.lastIndexOf(`[done ${n} `));
  expect(text).toContain(`[done ${n} 0]`);
  // Lines the terminal wrapped come back joined (-J): a line past 80 columns shows here.
  const wide = output.split('\n').filter((l) => [...l].length > 80);
  expect({ line, wide }).toEqual({ line, wide: [] });
  return output;
}

test('log in, create payors and a group, process it with a progress bar, settle now, read the e-mails, reverse it', async () => {
  const cli = 'npm run -s cli --';
  expect(await run(`${cli} login --data-dir ${runtime!.dataDir}`)).toMatch(
    /Logged in to local \(http:\/\/127\.0\.0\.1:\d+\)\nas local-tester, merchant 32350000001/,
  );

  const payors = await run(`${cli} payor create --email parent@example.com --customer cli-family`);
  expect(payors).toMatch(/│ 1\s+│ cli-family\s+│ parent@example.com │ \*+1111\s+│/);
  expect(payors).toMatch(/Profile ids \(what a payments file names\):\n1 [0-9a-f-]{36}\/[0-9a-f-]{36}$/m);
  await run(
    `P=$(${cli} payor create --email parent@example.com -q); D=$(${cli} payor create --card 4000000000000002 -q)`,
  );
  await run(
    `printf 'profileId,amount,orderId,sendEmailReceipt\\n%s,45.50,INV-1,true\\n%s,12.25,INV-2,true\\n%s,9.99,INV-3,false\\n' $P $P $D > ${home}/payments.csv`,
  );
  await run(`G=$(${cli} group create -f ${home}/payments.csv -q); echo "group $G"`);
  // A row the API refuses: the error names its line in the file (line 4: a header, two rows before).
  await run(`printf 'profileId,amount\\n%s,1.00\\n%s,2.00\\n%s,1.001\\n' $P $P $P > ${home}/bad.csv`);
  expect(await run(`${cli} group create -f ${home}/bad.csv || true`)).toMatch(
    /Error 400: [^\n]*payments\[2\]\.amount[\s\S]*\(bad\.csv\s+line\s+4\)/,
  );

  // The bar reaches the total, then the outcome table and the summary.
  const processed = await run(`${cli} group process $G`, 30_000);
  expect(processed).toMatch(/Processing █+ 3\/3 \| 2 approved, 1 declined, 0 failed/);
  // Payment ids by their last characters, the response code beside the status, the message whole.
  expect(processed).toMatch(/│ 1 │ …[0-9a-f-]+ │ INV-1 │ 45\.50\s+│ Approved 00 │ Approved\s+│/);
  expect(processed).toMatch(/│ 3 │ …[0-9a-f-]+ │ INV-3 │ 9\.99\s+│ Declined 05 │ Do not honor │/);
  expect(processed).toContain('Group processed: 3/3 answered: 2 approved, 1 declined, 0 failed');

  // Cut-offs are hours away: only the test clock settles the sales and sends the receipts.
  expect(await run(`${cli} settle`)).toMatch(
    /Settled 2 sales of 32350000001 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
  );
  const emails = await run(`${cli} emails --to parent@example.com --wait-for 2`, 30_000);
  expect(emails).toContain('2 e-mails');
  expect(emails).toContain('Springfield Elementary: receipt for your payment of 45.50');
  expect(emails).toContain('Springfield Elementary: receipt for your payment of 12.25');

  const reversed = await run(`${cli} group reverse $G`);
  // The reversal wraps within its column, so that the row fits 80 columns.
  expect(reversed).toMatch(
    /│ INV-1 │ 45\.50\s+│ Approved 00 │ Approved\s+│ Refund\s+│\n│[^\n]*│ Completed\s+│/,
  );
  expect(reversed).toContain('Voided 0, refunded 2, skipped 1, failed 0');

  const steps = await run(`${cli} group steps $G`);
  expect(steps).toMatch(/│ 1\s+│ BeginGroup\s+│ Task\s+│ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC │ \d+\.\d s/);
  expect(steps).toMatch(/│ CheckSettlement\s+│ Task/);
  expect(steps).toMatch(/│ Done\s+│ Succeed/);

  // The test clock is for test MIDs only (as the triggers): another merchant gets the API's 403.
  await run(`${cli} login --data-dir ${runtime!.dataDir} --mid 41000000001`);
  const refused = await run(`${cli} settle || true`);
  expect(refused).toMatch(
    /Error 403: settle-now needs an 11-digit test MID within\s+32350000000-32350099999\s+\(got 41000000001\)/,
  );
  // A refusal is final: no advice to send it again with its key.
  expect(refused).not.toContain('Idempotency-Key');
  await run(`${cli} login --data-dir ${runtime!.dataDir}`);

  expect(await run(`${cli} groups`)).toMatch(/│ [0-9a-f-]{36} │ \d{4}-\d\d-\d\d 14h\s+│ processed\s+│ 3\s+│/);
}, 90_000);

/** The commands a help screen lists (`Commands:`), but `help` itself. */
const commandsIn = (help: string): string[] =>
  [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)\b/gm)]
    .map(([, name]) => name!)
    .filter((name) => name !== 'help');

test('defect: the series tables were 147-151 columns wide and group show cut the decline reason to "Do no…": every command, and its help, fits 80 columns', async () => {
  // What `npm run cli --` runs (package.json's script), typed without npm's own start: a quarter
  // of a second of CPU for each of this test's some 70 commands. The test above types the commands
  // as a tester does; this one is about what each command prints.
  const cli = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { cli: string } })
    .scripts.cli;
  // Every command of the CLI, from its own help (a command added later is in this list too).
  const leaves: string[] = [];
  for (const top of commandsIn(await run(`${cli} --help`))) {
    const help = await run(`${cli} ${top} --help`);
    const subcommands = help.includes('Commands:') ? commandsIn(help) : [];
    if (subcommands.length === 0) leaves.push(top);
    for (const sub of subcommands) {
      leaves.push(`${top} ${sub}`);
      await run(`${cli} ${top} ${sub} --help`);
    }
  }
  const exercised: string[] = [];
  const spay = async (command: string, args = '', ms?: number): Promise<string> => {
    exercised.push(command);
    return run(`${cli} ${command} ${args}`, ms);
  };

  await spay('login', `--data-dir ${runtime!.dataDir}`);
  // Declined payments are retried once (the merchant's settings), so that retry-now has a round.
  const api = new ScheduledPaymentsClient({
    baseUrl: runtime!.url,
    tokenUrl: `${runtime!.url}/oauth2/token`,
    clientId: 'local-tester',
    clientSecret: 'local-tester-secret',
  });
  await api.updateMerchantSettings(MID, { retryPolicy: { maxRetries: 1 } });

  // Long values wherever a merchant may put them: e-mail, customer id, order ids, amounts.
  const email = 'front-office-of-the-elementary-school@springfield-school-district.example';
  const payors = await spay(
    'payor create',
    `--email ${email} --customer springfield-family-of-a-rather-long-name-0001`,
  );
  // Whole, over lines: a column's text read down the table (its breaks left out).
  const column = (text: string, index: number) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => l.split('│')[index + 1]!.trim())
      .join('');
  expect(column(payors, 1)).toContain('springfield-family-of-a-rather-long-name-0001');
  expect(column(payors, 2)).toContain(email);
  await run(
    `P=$(${cli} payor create --email ${email} -q); R=$(${cli} payor create --card 4000000000009995 -q); D=$(${cli} payor create --card 4000000000000002 -q)`,
  );
  await run(
    `printf 'profileId,amount,orderId\\n%s,999999.99,INVOICE-2026-SPRING-TERM-0001\\n%s,12345.67,INVOICE-2026-SPRING-TERM-0002\\n%s,9.99,INVOICE-2026-SPRING-TERM-0003\\n' $P $R $D > ${home}/wide.csv`,
  );
  const card = await spay('group create', `-f ${home}/wide.csv | tee ${home}/group.txt`);
  expect(card).toMatch(/│ Payments\s+│ 3\s+│/);
  await run(`G=$(grep -o '[0-9a-f-]\\{36\\}' ${home}/group.txt | head -1); echo "group $G"`);

  await spay('group process', '$G', 30_000);
  const shown = await spay('group show', '$G');
  // The reasons whole: never "Do no…".
  expect(shown).toMatch(/│ Declined 05 │ Do not honor +│/);
  expect(shown).toMatch(/│ Declined 51 │ Insufficient funds │/);
  expect(shown).not.toMatch(/Do no…|Insuffi…/);
  // The order ids whole too, over lines where they do not fit.
  expect(column(shown, 2)).toContain('INVOICE-2026-SPRING-TERM-0001');
  // One of its sales as a card: its answer, its money, its order.
  const groupId = /[0-9a-f-]{36}/.exec(readFileSync(`${home}/group.txt`, 'utf8'))![0];
  let saleId = '';
  for await (const p of api.allPayments('32350000001', groupId))
    if (p.authResponse?.status === 'Approved') saleId = p.authResponse.transactionId ?? '';
  expect(saleId).toMatch(/^[0-9a-f-]{36}$/);
  const sale = await spay('sale show', saleId);
  expect(sale).toMatch(/│ Status\s+│ Approved 00\s+│/);
  expect(sale).toMatch(/│ Amount\s+│ 999999\.99\s+│/);
  expect(column(sale, 1)).toContain('INVOICE-2026-SPRING-TERM-0001');

  // The first run's sales wait for their cut-off (hours away): retry-now says so, and why.
  const waiting = await spay('group retry-now');
  expect(waiting.replace(/\s+/g, ' ')).toContain(
    'No retry round started: 1 group with retries scheduled waits for the settlement cut-off of its last run',
  );
  // Money that comes back, in a small group of its own (made through the API): a bank debit on the
  // sandbox's R02 account (returned at the 1st cut-off after settlement) and a charge of its card
  // disputed product_not_received (the 1st too): `spay settle` brings both forward.
  const payorOf = async (paymentMethod: Record<string, unknown>) => {
    const created = await api.createPayor(MID, { paymentMethod } as never);
    return { profileId: `${created.payorId}/${created.defaultPaymentMethodId}`, amount: 30 };
  };
  const comesBack = await api.createGroup(MID, {
    ...groupInput({ servicePayId: MID, scheduleDate: tomorrowDate() }),
    payments: [
      await payorOf(checkingInput({ accountNumber: '000111111113' })),
      await payorOf(cardInput({ cardNumber: '4000000000002685' })),
    ],
  } as never);
  await spay('group process', comesBack.paymentGroupId, 30_000);

  await spay('settle');
  // The notices backstop at once (else within 5 s): the return and the dispute applied.
  expect((await fetch(`${runtime!.url}/__local/events/notices`, { method: 'POST' })).status).toBe(200);
  const back = await spay('group show', comesBack.paymentGroupId);
  expect(back).toMatch(/│ Returned\s+│ 1 \(30\.00\)/);
  expect(back).toMatch(/│ Disputed\s+│ 1 \(30\.00\)/);
  const flat = (text: string) => text.replace(/[│\s]+/g, ' ');
  expect(flat(back)).toContain('Returned R02 Account closed (administrative)');
  expect(flat(back)).toContain('Approved 00 Disputed product_not_received (needs_response), 30.00');
  const sales = new Map<string, string>();
  for await (const p of api.allPayments(MID, comesBack.paymentGroupId))
    sales.set(p.authResponse!.status, p.authResponse!.transactionId!);
  expect(flat(await spay('sale show', sales.get('Returned')))).toMatch(
    /Status Returned R02 .* Returned R02 Account closed \(administrative\), \d{4}-\d\d-\d\d/,
  );
  expect(flat(await spay('sale show', sales.get('Approved')))).toMatch(
    /Dispute Disputed product_not_received \(needs_response\), 30\.00, opened \d{4}-/,
  );
  // Once the run has sent its receipt (within seconds of the test clock), the round starts. The
  // loop waits for "<group>: retry round started": "No retry round started: …" (the receipt not
  // yet sent) contains "started" too, and ended the loop at once.
  const started = await run(
    `for i in $(seq 60); do O=$(${cli} group retry-now); case "$O" in *": retry round started"*) break;; esac; sleep 1; done; echo "$O"`,
    90_000,
  );
  expect(started).toMatch(/[0-9a-f-]{36}: retry round started/);

  expect(await spay('group report', '$G')).toMatch(/│ Scheduled\s+│ 3\s+│/);
  expect(await spay('group report', `$G --csv -o ${home}/report.csv`)).toContain('Wrote');
  expect(await spay('group steps', '$G')).toMatch(/│ BeginGroup\s+│ Task/);
  expect(await spay('groups')).toMatch(/│ processed\s+│ 3\s+│/);
  expect(await spay('group reverse', '$G')).toMatch(/Voided \d+, refunded \d+, skipped \d+, failed \d+/);
  expect(await spay('emails', `--to ${email}`)).toMatch(/\d+ e-mails?/);
  // The merchant's return rates against Nacha's limits, one row per rate, within 80 columns.
  const rates = await spay('return-rates');
  expect(rates).toMatch(/\d+ bank debits in the last 60 UTC days/);
  expect(rates).toMatch(/│ unauthorized\s+│ \d+\s+│ [\d.]+%\s+│ 0\.50%\s+│ (ok|warning|alert|over)\s+│/);

  // A series in a time zone with a long name; its first occurrence's group made at once.
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const created = await spay(
    'series create',
    `-f ${home}/wide.csv --zone America/Argentina/Rio_Gallegos --start ${tomorrow} --count 3 --notice-days 3 | tee ${home}/series.txt`,
  );
  expect(created).toMatch(/│ Local time +│[^\n]*\n│ +│ \(America\/Argentina\/Rio_Gallegos\) +│/);
  await run(`SID=$(grep -o '[0-9a-f-]\\{36\\}' ${home}/series.txt | head -1); echo "series $SID"`);
  expect(await spay('series list')).toMatch(/│ [0-9a-f-]{36} │ active\s+│ monthly ×1 at 09:00/);
  const series = await spay('series show', '$SID');
  expect(series).toContain('Occurrences whose turn has come');
  expect(series).toMatch(/│ 1\s+│ \d{4}-\d\d-\d\d 09:00-03:00 │ created │ [0-9a-f-]{36} │/);
  expect(await spay('series cancel', '$SID')).toMatch(/Series [0-9a-f-]{36} canceled/);

  // Every command ran here, but `listen` (test/e2e/cli-listen.test.ts runs it at 80 columns too).
  expect([...new Set([...exercised, 'listen'])].sort()).toEqual([...leaves].sort());
}, 300_000);
