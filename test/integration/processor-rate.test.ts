/**
 * The processor's rate against DynamoDB Local (core/processor-rate.ts, store/rate-windows.ts): 12
 * parallel callers of 12 groups on the real clock take every token they need and no second's
 * windows, as the table counts them, ever hold more than the rate; a group's own windows never more
 * than its rate, a merchant's never more than the merchant's.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { RateTokens } from '#core/processor-rate';
import { reloadConfigForTests } from '#shared/config';
import { DynamoRateWindowStore } from '#store/rate-windows';
import { createTestTable, type TestTable } from '#support/ddb';

let table: TestTable;
let store: DynamoRateWindowStore;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  store = new DynamoRateWindowStore(table.db, table.tableName);
});

afterAll(async () => {
  await table.drop();
});

/** Every window item of the table: its key (a shard or `G#<group>`), second and count. */
async function windows(): Promise<{ key: string; second: number; used: number }[]> {
  const out = await table.db.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return (out.Items ?? [])
    .filter((i) => String(i.pk).startsWith('RATE#'))
    .map((i) => {
      const parts = String(i.pk).split('#');
      return { key: parts.slice(1, -1).join('#'), second: Number(parts.at(-1)), used: Number(i.used) };
    });
}

const sumBy = (items: { second: number; used: number }[]) => {
  const by = new Map<number, number>();
  for (const w of items) by.set(w.second, (by.get(w.second) ?? 0) + w.used);
  return by;
};

it("12 parallel callers: every token granted, no second above the rate, no group above its own, no merchant's groups above the merchant's", async () => {
  const rate = 48;
  const groupRate = 12;
  const merchantRate = 18;
  const perCaller = 8;
  const granted = new Map<number, number>();
  const callers = Array.from(
    { length: 12 },
    (_, i) =>
      new RateTokens({
        groupId: `g${i % 6}`, // two callers per group: a group's windows are shared too
        merchantId: `m${i % 2}`, // three groups per merchant
        lane: i % 4 === 0 ? 'first' : 'rest',
        need: perCaller,
        deadline: Date.now() + 30_000,
        limits: { rate, groupRate, merchantRate },
        store,
      }),
  );
  await Promise.all(
    callers.map(async (t) => {
      for (let k = 0; k < perCaller; k++) {
        expect(await t.take()).toBe(true);
        const second = Math.floor(Date.now() / 1000);
        granted.set(second, (granted.get(second) ?? 0) + 1);
      }
    }),
  );
  expect([...granted.values()].reduce((a, b) => a + b, 0)).toBe(12 * perCaller);
  expect(Math.max(...granted.values())).toBeLessThanOrEqual(rate);
  const all = await windows();
  const shards = all.filter((w) => !w.key.startsWith('G#') && !w.key.startsWith('M#'));
  expect(Math.max(...sumBy(shards).values())).toBeLessThanOrEqual(rate);
  for (let g = 0; g < 6; g++) {
    const own = all.filter((w) => w.key === `G#g${g}`);
    expect(own.length).toBeGreaterThan(0);
    expect(Math.max(...sumBy(own).values())).toBeLessThanOrEqual(groupRate);
  }
  for (let m = 0; m < 2; m++) {
    const merchant = all.filter((w) => w.key === `M#m${m}`);
    expect(merchant.length).toBeGreaterThan(0);
    expect(Math.max(...sumBy(merchant).values())).toBeLessThanOrEqual(merchantRate);
  }
}, 30_000);
