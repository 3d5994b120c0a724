/**
 * `spay listen` as a person uses it: typed into a shell under tmux at 80 columns,
 * against the e2e tier's runtime. It prints the signing secret; a payor created meanwhile reaches
 * the application's URL (a real receiver on loopback) signed so that the client's `verifyWebhook`
 * accepts it with that secret; each delivery is one line in, one line out, within 80 columns;
 * Ctrl-C (even pressed twice) deletes the endpoint it made. With `--port` it receives on that port
 * of 127.0.0.1 alone; a busy one is a one-line error, and no endpoint is made.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { verifyWebhook } from '../../client/index';
import { freePort } from '#lib/local/dynamodb-local';
import { sleep } from '#shared/clock';
import { call, MID } from '#support/api';
import { bodyOf, operations } from '#support/security-operations';
import { accepts, outwardAddresses } from '#support/listening-sockets';
import { startReceiver, type Receiver } from '#support/webhook-receiver';

const ROOT = resolve(__dirname, '..', '..');
const SOCKET = `spay-listen-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

let home: string;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver(() => 204);
  home = mkdtempSync(join(tmpdir(), 'spay-home-'));
  tmux(
    'new-session',
    '-d',
    '-s',
    'cli',
    '-x',
    '80',
    '-y',
    '40',
    '-c',
    ROOT,
    '-e',
    `SPAY_HOME=${home}`,
    '-e',
    `PATH=${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    '-e',
    'PS1=$ ',
    'bash --norc --noprofile',
  );
});

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(home, { recursive: true, force: true });
  await receiver.close();
});

function type(line: string): void {
  tmux('send-keys', '-t', 'cli', '-l', line);
  tmux('send-keys', '-t', 'cli', 'Enter');
}

/** The whole scrollback, wrapped lines joined: a line longer than 80 columns shows as one. */
const screen = (): string => tmux('capture-pane', '-p', '-J', '-t', 'cli', '-S', '-', '-E', '-');

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 45_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`never saw ${what}:\n${screen()}`);
    await sleep(250);
  }
}

test('spay listen forwards signed deliveries to a local URL and cleans up on Ctrl-C', async () => {
  type(`npm run -s cli -- login --data-dir ${process.env.E2E_DATA_DIR!}`);
  type(`npm run -s cli -- listen --forward-to ${receiver.url('/hooks')} --events 'payor.*'`);
  const secret = await waitFor('the signing secret', () => /^(whsec_\S+)$/m.exec(screen())?.[1]);
  expect(screen()).toContain(`Ready: forwarding payor.* to ${receiver.url('/hooks')}`);
  receiver.secrets = [secret];

  const create = operations().find((op) => op.operationId === 'CreatePayor')!;
  const payor = await call('POST', `/v1/rest/merchants/${MID}/payors`, bodyOf(create, {} as never));
  expect(payor.status).toBe(201);
  const payorId = String(payor.body.payorId);
  const arrived = await waitFor('the payor.created delivery', () =>
    receiver.received.find((r) => r.event.type === 'payor.created' && r.event.objectId === payorId),
  );
  expect(arrived.path).toBe('/hooks');
  expect(arrived.verified).toBe(true);
  const event = verifyWebhook(
    arrived.body,
    {
      'webhook-id': arrived.id,
      'webhook-timestamp': arrived.timestamp,
      'webhook-signature': arrived.signature,
    },
    secret,
  );
  expect(event).toMatchObject({ type: 'payor.created', objectId: payorId });
  if (event.type === 'payor.created') expect(event.data.payorId).toBe(payorId);

  const text = await waitFor('the answer line', () => {
    const t = screen();
    return t.includes(`<- 204 from ${receiver.url('/hooks')}`) ? t : undefined;
  });
  expect(text).toContain(`-> payor.created ${arrived.id}`);

  // Defect "a second Ctrl-C during clean-up left the endpoint behind": npm and tsx forward the
  // terminal's SIGINT, so the process got it again while deleting and died; pressed twice here.
  tmux('send-keys', '-t', 'cli', 'C-c');
  tmux('send-keys', '-t', 'cli', 'C-c');
  const stopped = await waitFor(
    'the stop line',
    () => /Stopped: endpoint (\S+) deleted\./.exec(screen())?.[1],
  );
  const listed = await call('GET', `/v1/rest/merchants/${MID}/webhook-endpoints`);
  expect(JSON.stringify(listed.body)).not.toContain(stopped);
  // Everything it printed fits 80 columns (-J joins wrapped lines, so a longer one would show).
  const all = screen();
  const printed = all.slice(all.indexOf('Ready:'), all.indexOf('Stopped:') + 80).split('\n');
  expect(printed.length).toBeGreaterThanOrEqual(6);
  expect(printed.filter((line) => line.length > 80)).toEqual([]);
}, 120_000);

type Endpoint = { webhookEndpointId: string; url: string; description?: string };
const endpointsFor = async (target: string): Promise<Endpoint[]> =>
  ((await call('GET', `/v1/rest/merchants/${MID}/webhook-endpoints`)).body as unknown as Endpoint[]).filter(
    (e) => e.description === `spay listen -> ${target}`,
  );

test('spay listen --port receives on that port of 127.0.0.1; a busy one is one line and makes no endpoint', async () => {
  type(`npm run -s cli -- login --data-dir ${process.env.E2E_DATA_DIR!}`);
  const blocker = createServer();
  const busy = await freePort();
  await new Promise<void>((ok) => blocker.listen(busy, '127.0.0.1', ok));
  const refused = receiver.url('/busy');
  try {
    type(`npm run -s cli -- listen --forward-to ${refused} --port ${busy}; echo "listen exited $?"`);
    await waitFor('the exit', () => (screen().includes('listen exited 1') ? true : undefined));
  } finally {
    await new Promise<void>((ok) => blocker.close(() => ok()));
  }
  const said = screen().replace(/\s+/g, ' ');
  expect(said).toContain(
    `Error: port ${busy} is already in use: stop what listens on it, or choose another --port`,
  );
  expect(screen()).not.toMatch(/^\s+at /m);
  expect(await endpointsFor(refused)).toEqual([]);

  const port = await freePort();
  const target = receiver.url('/chosen');
  type(`npm run -s cli -- listen --forward-to ${target} --port ${port}`);
  await waitFor('the ready line', () =>
    screen().includes(`Ready: forwarding * to ${target}`) ? true : undefined,
  );
  const [endpoint, ...others] = await endpointsFor(target);
  expect(others).toEqual([]);
  expect(endpoint!.url).toBe(`http://127.0.0.1:${port}/`);
  expect(await accepts('127.0.0.1', port)).toBe(true);
  for (const address of outwardAddresses()) expect(await accepts(address, port)).toBe(false);
  // Defect "a Ctrl-C on a busy machine killed spay listen before it deleted its endpoint": npm ran
  // it under the tsx command, whose parent process SIGKILLs a child that has not acknowledged a
  // relayed signal within 30 ms. A busy process is a slow one; a stopped one is the slowest: the
  // process that runs the command is stopped while Ctrl-C is pressed, then continued.
  const runner = listenProcess(target);
  process.kill(runner, 'SIGSTOP');
  let killed = false;
  try {
    tmux('send-keys', '-t', 'cli', 'C-c');
    await sleep(500);
  } finally {
    try {
      process.kill(runner, 'SIGCONT');
    } catch {
      killed = true; // no such process
    }
  }
  expect({ killedBeforeItsCleanUp: killed }).toEqual({ killedBeforeItsCleanUp: false });
  await waitFor('the stop line', () =>
    screen().includes(`Stopped: endpoint ${endpoint!.webhookEndpointId} deleted.`) ? true : undefined,
  );
  expect(await endpointsFor(target)).toEqual([]);
}, 120_000);

/** The process that runs `spay listen --forward-to <target>`: the innermost of those that name it. */
function listenProcess(target: string): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter(
      // `npm run cli` runs bin/spay.ts, or in this tier its bundle, through scripts/tool.mjs.
      (m): m is RegExpExecArray =>
        m !== null &&
        [`spay.ts listen`, `tool.mjs spay listen`].some((c) => m[3]!.includes(`${c} --forward-to ${target}`)),
    )
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]) }));
  const leaves = rows.filter((row) => !rows.some((other) => other.ppid === row.pid));
  if (leaves.length !== 1) throw new Error(`expected one listen process, saw ${JSON.stringify(rows)}`);
  return leaves[0]!.pid;
}
