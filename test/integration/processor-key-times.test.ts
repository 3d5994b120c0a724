/**
 * What the core tells the processor about a key's age (DynamoDB Local, the sandbox behind a
 * recording wrapper): a processor that forgets keys after a day (Stripe) looks for an old key's
 * charge before charging again, so every replay of a key — a resumed sale, a timeout reversal, the
 * sweeper's — carries when that key was first used, however much later it comes.
 */
import { giveUpSale, runSale, type SaleRequest } from '#core/sale';
import { sweep } from '#core/sweeper';
import { useProcessor } from '#processor/index';
import type { SaleRequest as ProcessorSale, UnansweredRequest } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { ProcessorUnavailableError } from '#processor/processor';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
let processor: FaultyProcessor;
const MERCHANT = '32350000001';
const HOUR = 3600_000;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  processor = new FaultyProcessor(
    new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 86_400, offsetSeconds: 0 }),
  );
  useProcessor(processor);
});
afterEach(() => processor.clear());
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

const sale = async (extra: Partial<SaleRequest> = {}): Promise<SaleRequest> =>
  saleRequest(MERCHANT, await storedProfile(table, MERCHANT), 2500, extra);

const salesOf = (key: string) =>
  processor.requests.filter((r): r is ProcessorSale => 'token' in r && r.idempotencyKey === key);
const reversalsOf = (key: string) =>
  processor.requests.filter((r): r is UnansweredRequest => !('amountCents' in r) && r.idempotencyKey === key);

test('a sale resumed 25 hours after its first call tells the processor the key was first used then', async () => {
  const first = new Date('2031-05-01T09:00:00.000Z');
  const request = await sale({ onNoAnswer: 'throw' });
  processor.failNext(request.processorKey, 'unavailable-after');
  await expect(runSale(request, first)).rejects.toBeInstanceOf(ProcessorUnavailableError);

  const later = new Date(first.getTime() + 25 * HOUR);
  expect(await runSale(request, later)).toMatchObject({ status: 'Approved' });
  const calls = salesOf(request.processorKey);
  expect(calls.map((c) => c.keyFirstUsedAt)).toEqual([first.toISOString(), first.toISOString()]);
});

test("a timeout reversal made when giving up carries the key's first use, not the give-up time", async () => {
  const first = new Date('2031-05-02T09:00:00.000Z');
  const request = await sale({ onNoAnswer: 'throw', paymentId: 'p-give-up' });
  processor.failNext(request.processorKey, 'unavailable-before');
  await expect(runSale(request, first)).rejects.toBeInstanceOf(ProcessorUnavailableError);

  await giveUpSale(request, 'out of retries', new Date(first.getTime() + 30 * HOUR));
  // With the method's token (the charge looked up among its payor's own).
  expect(reversalsOf(request.processorKey)).toEqual([
    {
      idempotencyKey: request.processorKey,
      merchantId: MERCHANT,
      keyFirstUsedAt: first.toISOString(),
      token: expect.stringMatching(/^sbx\./),
    },
  ]);
});

test("the sweeper's reversal of a sale given up on carries the key's first use", async () => {
  const first = new Date('2031-05-03T09:00:00.000Z');
  const request = await sale({ onNoAnswer: 'throw', paymentId: 'p-sweep' });
  processor.failNext(request.processorKey, 'unavailable-before');
  await expect(runSale(request, first)).rejects.toBeInstanceOf(ProcessorUnavailableError);
  // Given up on while the processor is down: the reversal is left to the sweeper.
  await giveUpSale(request, 'out of retries', new Date(first.getTime() + HOUR), { reverse: 'later' });
  expect(reversalsOf(request.processorKey)).toEqual([]);

  await sweep(new Date(first.getTime() + 26 * HOUR), { olderThanSeconds: 60 });
  expect(reversalsOf(request.processorKey).map((r) => r.keyFirstUsedAt)).toEqual([first.toISOString()]);
});
