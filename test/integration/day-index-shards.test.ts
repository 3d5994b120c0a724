/**
 * Day index hot partition (issue 24, the busiest slot): every sale of a UTC day was indexed on one
 * GSI1 partition (`TXN#DAY#<day>`), written about twice a charge (the sale Pending, then final):
 * 2,000 write units a second at the processor's 1,000 charges/s, against the partition's 1,000. A
 * day is now spread over DAY_SHARDS partitions by the sale's id, and reconciliation reads them all,
 * with the unsharded partition that older sales sit in, in time order.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_SHARDS, queryDaysBounded } from '#store/day-index';
import { keys } from '#store/keys';
import { ReconciliationRecords } from '#store/reconciliation';
import { DynamoTransactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { transaction } from '#support/fixtures/index';

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());

const DAY = '2026-11-02';
const at = (i: number) =>
  `${DAY}T14:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;

it("spreads a day's sales over DAY_SHARDS index partitions, and reconciliation reads them all with the unsharded one, in time order", async () => {
  const store = new DynamoTransactionStore(table.db, table.tableName);
  const sales = Array.from({ length: 96 }, (_, i) =>
    transaction({ transactionId: `txn-${i}`, processedAt: at(i + 1), paymentId: `pay-${i}` }),
  );
  for (const sale of sales) await store.recordSale(sale);
  // One sale from before the shards: indexed on the day's single partition.
  const legacy = transaction({ transactionId: 'txn-legacy', processedAt: at(0), paymentId: 'pay-legacy' });
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...keys.transaction(legacy.transactionId),
        gsi1pk: `TXN#DAY#${DAY}`,
        gsi1sk: `${legacy.processedAt}#${legacy.transactionId}`,
        entity: 'transaction',
        ...legacy,
      },
    }),
  );

  const partitions = new Map<string, number>();
  for (const sale of sales) {
    const { gsi1pk } = keys.dayIndex('TXN', sale.processedAt, sale.transactionId);
    partitions.set(gsi1pk, (partitions.get(gsi1pk) ?? 0) + 1);
  }
  expect(partitions.size).toBe(DAY_SHARDS);
  // No shard takes much more than its share (96 / 8 = 12).
  expect(Math.max(...partitions.values())).toBeLessThanOrEqual(24);

  const listed = await new ReconciliationRecords(table.db, table.tableName).salesBetween(
    `${DAY}T00:00:00.000Z`,
    `${DAY}T23:00:00.000Z`,
  );
  expect(listed.map((s) => s.transactionId)).toEqual(['txn-legacy', ...sales.map((s) => s.transactionId)]);
});

it.each([1, 7, 40, 1000])(
  'a bounded read (budget %i) goes on where the last stopped: every entry of a two-day window once, in time order',
  async (budget) => {
    const [first, second] = ['2026-10-05', '2026-10-06'];
    const store = new DynamoTransactionStore(table.db, table.tableName);
    const sales = [first, second].flatMap((day) =>
      Array.from({ length: 30 }, (_, i) =>
        transaction({
          transactionId: `b${budget}-${day}-${i}`,
          processedAt: `${day}T0${Math.floor(i / 10)}:00:0${i % 10}.000Z`,
          paymentId: `pay-b${budget}-${day}-${i}`,
        }),
      ),
    );
    for (const sale of sales) await store.recordSale(sale);
    const window = {
      since: `${first}T00:00:00.000Z`,
      until: `${second}T23:00:00.000Z`,
      filter: { expression: 'begins_with(transactionId, :b)', values: { ':b': `b${budget}-` } },
    };
    const seen: string[] = [];
    let from: string | undefined;
    let reads = 0;
    do {
      const read = await queryDaysBounded(table.db, table.tableName, 'TXN', { ...window, from }, budget);
      for (const item of read.items)
        if (!seen.includes(String(item.transactionId))) seen.push(String(item.transactionId));
      expect(read.readThrough === undefined || from === undefined || read.readThrough > from).toBe(true);
      from = read.readThrough;
      reads++;
    } while (from !== undefined && reads < 200);
    expect(seen).toEqual(sales.map((s) => s.transactionId));
    if (budget < 60) expect(reads).toBeGreaterThan(1);
  },
);
