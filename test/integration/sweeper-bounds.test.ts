/**
 * Issue 10 item 5, defect "the sweeper's work was unbounded": one sweep read every stale entry of
 * the sweep index and worked them all, so a backlog (an hour of processor outage during a large
 * group) would outlast the function's 5 minutes and be cut off mid-way, every run. A sweep now
 * reads at most `maxItems` entries and starts none after its deadline; the rest is counted as
 * deferred and taken by the next sweep.
 */
import { reconcile } from '#core/reconcile';
import { sweep } from '#core/sweeper';
import { runSale } from '#core/sale';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { useClock } from '#shared/clock';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { sweepIndex } from '#store/sweep-index';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
let processor: FaultyProcessor;
const MERCHANT = '32350000003';
const base = new Date('2031-04-01T10:00:00.000Z');
const later = (seconds: number) => new Date(base.getTime() + seconds * 1000);
const STALE = { olderThanSeconds: 30 };

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  delete process.env.DUPLICATE_WINDOW_SECONDS;
  reloadConfigForTests();
  processor = new FaultyProcessor(
    new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 0 }),
  );
  useProcessor(processor);
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** `count` sales left Pending by a crash after the processor approved them. */
async function pendingSales(count: number, firstCents: number): Promise<string[]> {
  const profile = await storedProfile(table, MERCHANT, 'ok');
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const request = saleRequest(MERCHANT, profile, firstCents + i);
    processor.failNext(request.processorKey, 'crash-after');
    await expect(runSale(request, base)).rejects.toThrow('simulated crash');
    ids.push(request.transactionId);
  }
  return ids;
}

const statusOf = async (id: string) => (await transactionStore().find(id))!.transaction.status;

test('defect "the sweeper\'s work was unbounded": one sweep reads at most maxItems entries', async () => {
  const ids = await pendingSales(12, 9100);
  const first = await sweep(later(60), { ...STALE, maxItems: 5 });
  expect(first.settled.length).toBeLessThanOrEqual(5);
  expect(first.settled.length).toBeGreaterThan(0);
  const rest = await sweep(later(120), STALE);
  expect(first.settled.length + rest.settled.length).toBe(12);
  for (const id of ids) expect(await statusOf(id)).toBe('Approved');
});

test('defect "the sweeper\'s work was unbounded": no item is started after the deadline; the next sweep takes it', async () => {
  const ids = await pendingSales(4, 9300);
  const late = await sweep(later(60), { ...STALE, deadline: Date.now() - 1 });
  expect(late).toMatchObject({ settled: [], reversed: [], unsettled: [], deferred: 4 });
  for (const id of ids) expect(await statusOf(id)).toBe('Pending');
  const next = await sweep(later(120), STALE);
  expect(next.deferred).toBe(0);
  expect(next.settled.map((e) => e.transactionId).sort()).toEqual([...ids].sort());
});

test('defect "reconciliation\'s sweep had no deadline": it starts no item after the sweeper\'s budget', async () => {
  // A processor that takes 200 s to answer each replay (an outage's timeouts, one after another):
  // the daily run's sweep must stop starting work as the scheduled sweeper does, or a backlog
  // outlasts the function's 15 minutes and the run ends with no report.
  const ids = await pendingSales(10, 9500);
  let offset = 0;
  const start = later(3600).getTime();
  useClock({ nowMs: () => start + offset, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) });
  const sale = processor.sale.bind(processor);
  processor.sale = async (request) => {
    offset += 200_000;
    return sale(request);
  };
  try {
    const report = await reconcile({ since: later(-3600).toISOString(), staleMinutes: 30 });
    const pending = [];
    for (const id of ids) if ((await statusOf(id)) === 'Pending') pending.push(id);
    // The sweep's eight at once were started; the two after them wait for the next sweep.
    expect(pending).toHaveLength(2);
    expect(report.counts['stale-pending']).toEqual({ healed: 8, unhealed: 2 });
  } finally {
    useClock(undefined);
    processor.sale = sale;
  }
});

test('defect "a sweep entry outlived its work": an entry whose work no longer applies leaves the index', async () => {
  // A void reserved (its entry written) on a sale that then left Approved another way, by a write
  // that kept the entry: every sweep read it again, oldest first, in the place of live work.
  const [id] = await pendingSales(1, 9700);
  await sweep(later(60), STALE);
  expect(await statusOf(id!)).toBe('Approved');
  expect(await transactionStore().reserveVoid(id!, later(90).toISOString())).toBe(true);
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.transaction(id!),
      UpdateExpression: 'SET #status = :returned',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':returned': 'Returned' },
    }),
  );
  const listed = async (at: number) =>
    (await sweepIndex().staleWork(later(at).toISOString(), 2_000)).map((w) => w.transactionId);
  expect(await listed(3600)).toContain(id);
  const report = await sweep(later(3600), STALE);
  expect(report.unsettled).toEqual([]);
  expect(await listed(7200)).not.toContain(id);
});
