/**
 * Issue 12, item 7: `npm start` on a busy port exits 1 with a line naming the variable to change,
 * for the API's port (PORT), the local SES's (SES_PORT), DynamoDB Local's (DYNAMODB_PORT) and the
 * local Step Functions endpoint's (SFN_PORT), without a stack trace, and leaves nothing running.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { dynamoDbLocalCommandPattern, freePort } from '#lib/local/dynamodb-local';
import { localRuntimeCommand } from '#lib/local/runtime-bundle';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

let blocker: Server;
let busy: number;
beforeAll(async () => {
  busy = await freePort();
  blocker = createServer();
  await new Promise<void>((ok) => blocker.listen(busy, '127.0.0.1', ok));
});
afterAll(() => new Promise<void>((ok) => blocker.close(() => ok())));

async function start(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'busy-port-'));
  try {
    // What `npm start` runs (its command: test/unit/local-runtime-bundle.test.ts).
    const [command, args] = localRuntimeCommand();
    await run(command, args, {
      cwd: ROOT,
      env: { ...process.env, DYNAMODB_IN_MEMORY: 'true', DATA_DIR: dataDir, ...env },
      timeout: 60_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
}

const VARIABLES = ['PORT', 'SES_PORT', 'DYNAMODB_PORT', 'SFN_PORT'] as const;

test.each(VARIABLES)(
  'a busy %s is named',
  async (variable) => {
    // Every port chosen (free ones but the busy one), so that DynamoDB Local's can be looked for.
    const env: Record<string, string> = {};
    const taken = [busy];
    for (const other of VARIABLES) {
      const port = other === variable ? busy : await freePort(taken);
      taken.push(port);
      env[other] = String(port);
    }
    const { code, stderr } = await start(env);
    expect(code).toBe(1);
    expect(stderr).toContain(`port ${busy} is already in use`);
    expect(stderr).toContain(`set ${variable} to a free port, e.g. ${variable}=${busy + 100} npm start`);
    expect(stderr).not.toMatch(/^\s+at /m);
    const java = spawnSync('pgrep', ['-af', dynamoDbLocalCommandPattern(env.DYNAMODB_PORT!)], {
      encoding: 'utf8',
    });
    expect(java.stdout).toBe('');
  },
  90_000,
);
