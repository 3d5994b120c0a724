/**
 * Pending work still in flight at one daily reconciliation is judged by the next (docs/architecture.md
 * "Reconciliation"): a sale begun, or a void reserved, in the last 30 minutes before a run is too
 * young for that run, and was before the window of every later one, so it stayed Pending unreported
 * and the alarm never called anyone. The next run judges what the stale time before its window
 * holds, as it does for returns.
 */
import { reconcile, type ReconcileDeps, type ReconcileReport } from '#core/reconcile';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { MerchantAdmin } from '#store/merchant-admin';
import { ReconciliationRecords } from '#store/reconciliation';
import { DynamoTransactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { transaction } from '#support/fixtures/index';

const MERCHANT = '32350000001';
const HOUR = 3600_000;
const DAY = 24 * HOUR;

let table: TestTable;
let store: DynamoTransactionStore;
let deps: ReconcileDeps;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  const sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 });
  useProcessor(sandbox);
  store = new DynamoTransactionStore(table.db, table.tableName);
  deps = {
    records: new ReconciliationRecords(table.db, table.tableName),
    processor: sandbox,
    sweep: async () => undefined,
  };
  await new MerchantAdmin(table.db, table.tableName).register({ merchantId: MERCHANT, name: 'Test' });
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** The daily run at `at`: the day before it, as the scheduled reconciliation reads it. */
const dailyRun = (at: number): Promise<ReconcileReport> =>
  reconcile(
    { since: new Date(at - DAY).toISOString(), now: new Date(at), staleMinutes: 30, heal: false },
    deps,
  );

const about = (report: ReconcileReport, id: string) =>
  report.differences.filter((d) => d.transactionId === id || d.refundId === id);

describe('reconciliation: stale work across daily runs', () => {
  it('a sale begun 10 minutes before a daily run and still Pending is judged stale-pending by the next run', async () => {
    // Two days ago, on the hour: run 1 then, run 2 a day later (both in the past).
    const run1 = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR;
    const begun = new Date(run1 - 10 * 60_000).toISOString();
    const txn = transaction({
      transactionId: newId(),
      merchantId: MERCHANT,
      status: 'Pending' as never,
      responseCode: 'PD',
      processedAt: begun,
      settlesAt: new Date(run1 + HOUR).toISOString(),
    });
    await store.beginSale(txn);

    // Run 1: 10 minutes old, in flight: rightly not judged.
    expect(about(await dailyRun(run1), txn.transactionId)).toEqual([]);
    // Control: a window that reaches back to it reports it (the record is read, and stale).
    const wide = await reconcile(
      {
        since: new Date(run1 - HOUR).toISOString(),
        now: new Date(run1 + DAY),
        staleMinutes: 30,
        heal: false,
      },
      deps,
    );
    expect(about(wide, txn.transactionId)).toEqual([expect.objectContaining({ kind: 'stale-pending' })]);
    // Run 2, a day later: Pending for a day and 10 minutes, it must be reported.
    expect(about(await dailyRun(run1 + DAY), txn.transactionId)).toEqual([
      expect.objectContaining({ kind: 'stale-pending', transactionId: txn.transactionId }),
    ]);
  });

  it('a void reserved 5 minutes before a daily run and never finished is judged stale-pending by the next run', async () => {
    const run1 = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR;
    const sale = transaction({
      transactionId: newId(),
      merchantId: MERCHANT,
      processedAt: new Date(run1 - 25 * 60_000).toISOString(),
      settlesAt: new Date(run1 + 30 * 60_000).toISOString(),
    });
    await store.recordSale(sale);
    expect(await store.reserveVoid(sale.transactionId, new Date(run1 - 5 * 60_000).toISOString())).toBe(true);
    const stale = (report: ReconcileReport) =>
      about(report, sale.transactionId).filter((d) => d.kind === 'stale-pending');

    // Run 1: reserved 5 minutes ago, in flight: rightly not judged.
    expect(stale(await dailyRun(run1))).toEqual([]);
    // Control: a window that reaches back to the sale reports the unfinished void.
    const wide = await reconcile(
      {
        since: new Date(run1 - HOUR).toISOString(),
        now: new Date(run1 + DAY),
        staleMinutes: 30,
        heal: false,
      },
      deps,
    );
    expect(stale(wide)).toEqual([
      expect.objectContaining({ detail: expect.stringContaining('void reserved') }),
    ]);
    // Run 2, a day later: the void has been reserved for a day, never finished.
    expect(stale(await dailyRun(run1 + DAY))).toEqual([
      expect.objectContaining({ kind: 'stale-pending', detail: expect.stringContaining('void reserved') }),
    ]);
  });
});
