/**
 * `npm run admin -- reconcile --json` (bin/admin.ts) run for real against the tier's DynamoDB
 * Local (as `--local`, through a runtime.json naming the test's table): its stdout must be the
 * report alone, as `account-updater --json` keeps it (bin/admin-jobs.ts sets POWERTOOLS_LOG_LEVEL
 * there, "stdout stays the report alone, e.g. with --json"), so that an operator's script (or a
 * `| jq`) can read it.
 */
import { runSale } from '#core/sale';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { MerchantAdmin } from '#store/merchant-admin';
import { transactionStore } from '#store/transactions';
import { localAdminCli, type LocalAdminCli } from '#support/admin-cli';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { saleRequest, storedProfile } from '#support/sales';

const MERCHANT = '32350000081';
let table: TestTable;
let admin: LocalAdminCli;
let processor: FaultyProcessor;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  processor = new FaultyProcessor(
    new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 }),
  );
  useProcessor(processor);
  await new MerchantAdmin(table.db, table.tableName).register({
    merchantId: MERCHANT,
    name: 'Json Elementary',
  });
  admin = localAdminCli(table.tableName, 'sps-admin-json-');
});
afterAll(async () => {
  useProcessor(undefined);
  admin.remove();
  await table.drop();
});

/** The CLI's stdout and exit code (reconcile exits 1 while unhealed differences remain). */
async function reconcileJson(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await admin('reconcile', ...args, '--json');
    return { stdout, code: 0 };
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    return { stdout: e.stdout ?? '', code: e.code ?? -1 };
  }
}

test("defect: `admin reconcile --json` that heals a stale sale prints the sweeper's info log line on stdout before the report, so stdout is not JSON", async () => {
  // A sale the processor approved whose process died before it recorded the answer: Pending,
  // two hours ago, for the run's sweep to settle.
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  const profile = await storedProfile(table, MERCHANT, 'ok');
  const request = saleRequest(MERCHANT, profile, 4321);
  processor.failNext(request.processorKey, 'crash-after');
  await expect(runSale(request, twoHoursAgo)).rejects.toThrow('simulated crash');
  expect((await transactionStore().find(request.transactionId))!.transaction.status).toBe('Pending');

  const since = new Date(Date.now() - 3 * 3600_000).toISOString();
  const { stdout } = await reconcileJson('--since', since, '--stale-minutes', '0');
  // The run did heal it (so the sweep ran in the CLI's process)...
  expect((await transactionStore().find(request.transactionId))!.transaction.status).toBe('Approved');
  // ...and its stdout is the report, nothing else.
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines.filter((line) => /"message":"sweep"/.test(line))).toEqual([]);
  expect(() => JSON.parse(stdout)).not.toThrow();
}, 120_000);
