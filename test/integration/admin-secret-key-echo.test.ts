/**
 * `npm run admin -- merchant ... --stripe-account <acct_...>` (bin/admin.ts) against docs/operating.md
 * "Going live with Stripe": step 1 puts the platform's secret key (`sk_live_…`/`rk_live_…`) in
 * Secrets Manager, step 2 maps each merchant to its connected account (`acct_…`) with this command.
 * A key pasted where the account goes is refused, and must not be printed back: the tools never
 * print a secret (the terminal's scrollback, a CI job's log, a runbook's captured output).
 *
 * Run for real against the tier's DynamoDB Local, as `npm run admin` runs it (scripts/tool.mjs,
 * from its TypeScript through tsx), with a runtime.json naming the test's table (what `--local`
 * reads).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { MerchantAdmin } from '#store/merchant-admin';
import { createTestTable, type TestTable } from '#support/ddb';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
const MERCHANT = { merchantId: '32350000091', shortId: '23500091', name: 'Keyed Elementary' };
/** A live secret key's shape (not a real key). */
const SECRET_KEY = 'sk_live_51Qx7TestOnlyNotARealKey0000000000000000000000000000000000aa';

let table: TestTable;
let dataDir: string;
beforeAll(async () => {
  table = await createTestTable();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
  dataDir = mkdtempSync(join(tmpdir(), 'sps-admin-key-'));
  writeFileSync(
    join(dataDir, 'runtime.json'),
    JSON.stringify({ dynamodbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB, tableName: table.tableName }),
  );
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await table.drop();
});

/** `npm run admin -- <args> --local`: its output and exit code. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  // From the TypeScript (tsx), not from a bundle another process tree built.
  delete env.LOCAL_RUNTIME_BUNDLE;
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, 'scripts', 'tool.mjs'), 'admin', ...args, '--local'],
      { cwd: ROOT, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('defect: `admin merchant --mid M --stripe-account <a secret key>` refuses it by printing the whole key back', async () => {
  const result = await admin('merchant', '--mid', MERCHANT.merchantId, '--stripe-account', SECRET_KEY);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('stripe');
  expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET_KEY);
}, 60_000);

test('defect: `admin merchant --stripe-account <a secret key>` (the way back) prints the whole key in its "no merchant\'s account" error', async () => {
  const result = await admin('merchant', '--stripe-account', SECRET_KEY);
  expect(result.code).toBe(1);
  expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET_KEY);
}, 60_000);
