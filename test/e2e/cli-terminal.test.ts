/**
 * The tester CLI as a person uses it: typed into a shell under tmux (a private server socket, a
 * 80×50 window: every line a command prints fits 80 columns), the screen read back with
 * capture-pane. Its own runtime: settlement cut-offs a day apart and hours away
 * (farSettlementSeconds), so that only the test clock (`spay settle`) can send the group's receipts
 * and turn its reversal into refunds; processing polls for settlement every 2 s instead of 60.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { farSettlementSeconds } from '#support/settlement-timing';
import { sleep } from '#shared/concurrency';

const ROOT = resolve(__dirname, '..', '..');
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
  // Payment ids by their last characters, the message cut to fit 80 columns.
  expect(processed).toMatch(/│ 1 │ …[0-9a-f-]+ │ INV-1 │ 45\.50\s+│ Approved │ 00\s+│ Approved/);
  expect(processed).toMatch(/│ 3 │ …[0-9a-f-]+ │ INV-3 │ 9\.99\s+│ Declined │ 05\s+│ Do not/);
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
  expect(reversed).toMatch(/│ INV-1 │ 45\.50\s+│ Approved │ 00\s+│ [^│]+│ Refund Completed/);
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
  expect(refused).not.toContain('retry with it');
  await run(`${cli} login --data-dir ${runtime!.dataDir}`);

  expect(await run(`${cli} groups`)).toMatch(/│ [0-9a-f-]{36} │ \d{4}-\d\d-\d\d 14h\s+│ processed\s+│ 3\s+│/);
}, 90_000);
