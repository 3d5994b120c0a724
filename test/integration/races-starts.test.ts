/**
 * Races on the starts of background work (issue 25, defect 3): the background void-or-refund of a
 * group, started by 8 callers at once (with the group's reads stale, as DynamoDB may answer them
 * for about a second), and the test clock's settle-now called 8 times at once. DynamoDB Local,
 * the local Step Functions endpoint on the real ASL file, and the sandbox processor.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settleNow } from '#core/test-clock';
import { startMerchantGroups } from '#core/processing';
import { retryNow } from '#core/retry-rounds';
import { runSale } from '#core/sale';
import { requireTransaction } from '#core/transactions';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { keys } from '#store/keys';
import { groupStore } from '#store/groups';
import { reverseInBackground } from '#core/void-or-refund-run';
import {
  VOID_OR_REFUND_DEFINITION,
  voidOrRefundExecutionName,
  voidOrRefundTasks,
} from '#contract/processing';
import { createSfnServer, LocalStepFunctions } from '#lib/local/step-functions';
import { makeGroup } from '#support/fixtures/index';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectFaults } from '#support/ddb-faults';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
let server: Server;
let machine: LocalStepFunctions;
let release: () => void = () => undefined;
const MERCHANT = '32350000001';
const ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:races-void-or-refund';

beforeAll(async () => {
  table = await createTestTable();
  // Every task waits until the test is over: the executions stay RUNNING while callers race.
  const held = new Promise<void>((resolve) => (release = resolve));
  const tasks = Object.fromEntries(voidOrRefundTasks.map((t) => [t.state, () => held]));
  const substitutions = Object.fromEntries(
    voidOrRefundTasks.map((t) => [
      t.substitution,
      `arn:aws:lambda:us-east-1:000000000000:function:${t.state}`,
    ]),
  );
  machine = new LocalStepFunctions(VOID_OR_REFUND_DEFINITION, ARN, substitutions, tasks);
  server = createSfnServer(machine);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    SERVICE_STAGE: 'dev',
    VOID_OR_REFUND_STATE_MACHINE_ARN: ARN,
    AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
  reloadConfigForTests();
});
afterAll(async () => {
  const stopped = machine.stop();
  release();
  await stopped;
  useProcessor(undefined);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await table.drop();
});

const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'rejected' ? `${(r.reason as Error).name}: ${(r.reason as Error).message}` : 'fulfilled';

test('8 concurrent starts of a group background void-or-refund, its reads stale, all answer one execution (not 503)', async () => {
  const profileId = await storedProfile(table, MERCHANT);
  const { group, payments } = makeGroup(3, { scheduleDate: '2031-05-01', profileId });
  await groupStore().createGroup(group, payments);
  const faults = await injectFaults(ddb(), table.tableName, { stale: [keys.group(group.paymentGroupId)] });
  try {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => reverseInBackground(group, new Date())),
    );
    expect(results.map(outcome)).toEqual(Array(8).fill('fulfilled'));
    const arns = new Set(results.map((r) => (r as PromiseFulfilledResult<string>).value));
    expect([...arns]).toEqual([
      `${ARN.replace(':stateMachine:', ':execution:')}:${voidOrRefundExecutionName(group.paymentGroupId, 1)}`,
    ]);
    // A repeat while it runs answers the same execution.
    expect(await reverseInBackground(group, new Date())).toBe([...arns][0]);
  } finally {
    faults.remove();
  }
});

test('8 concurrent settle-now calls settle each sale once: their counts add up to the sales settled', async () => {
  const period = 86_400;
  const offset = (Math.floor(Date.now() / 1000) + 43_200) % period;
  const sandbox = new SandboxProcessor(ddb(), table.tableName, {
    periodSeconds: period,
    offsetSeconds: offset,
  });
  useProcessor(sandbox);
  const profileId = await storedProfile(table, MERCHANT);
  const sales = await Promise.all(
    Array.from({ length: 12 }, (_, i) => runSale(saleRequest(MERCHANT, profileId, 500 + i), new Date())),
  );
  expect(sales.every((s) => s.status === 'Approved')).toBe(true);
  const results = await Promise.allSettled(Array.from({ length: 8 }, () => settleNow(MERCHANT, new Date())));
  expect(results.map(outcome)).toEqual(Array(8).fill('fulfilled'));
  const counts = results.map(
    (r) => (r as PromiseFulfilledResult<{ settledCount: number }>).value.settledCount,
  );
  expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
  for (const sale of sales) {
    const { transaction } = await requireTransaction(sale.transactionId, MERCHANT);
    expect(Date.parse(transaction.settlesAt!)).toBeLessThanOrEqual(Date.now());
  }
});

test('settle-now never counts a sale twice: a call whose time is before an earlier call settled leaves its sales alone', async () => {
  // The sandbox answers with its own time, after the call's; a second call whose time falls between
  // the two (concurrent calls take their times in any order) saw the moved cut-off as still ahead.
  const merchant = '32350000002';
  useProcessor(new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 86_400, offsetSeconds: 0 }));
  const profileId = await storedProfile(table, merchant);
  const sales = await Promise.all(
    [700, 701].map((cents) => runSale(saleRequest(merchant, profileId, cents), new Date())),
  );
  expect(sales.map((s) => s.status)).toEqual(['Approved', 'Approved']);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const first = await settleNow(merchant, new Date());
  expect(first.settledCount).toBe(2);
  const between = new Date(Date.parse(first.settledAt) - 1);
  expect((await settleNow(merchant, between)).settledCount).toBe(0);
  expect((await settleNow(merchant, new Date())).settledCount).toBe(0);
  for (const sale of sales) {
    const { transaction } = await requireTransaction(sale.transactionId, merchant);
    expect(transaction.settlesAt).toBe(first.settledAt);
  }
});

test('defect: the merchant-wide process-payments trigger read and started every pending group of the merchant in one request; it starts at most so many, first pending first, and says `more` until the last', async () => {
  const merchant = '32350000078';
  const date = '2031-07-01';
  const profileId = await storedProfile(table, merchant);
  const created = [];
  for (let i = 0; i < 3; i++) {
    const { group, payments } = makeGroup(1, { merchantId: merchant, scheduleDate: date, profileId });
    await groupStore().createGroup(group, payments);
    created.push(group.paymentGroupId);
  }
  // Started on this file's held machine: each execution stays RUNNING, its group processing.
  process.env.STATE_MACHINE_ARN = ARN;
  reloadConfigForTests();
  const first = await startMerchantGroups(merchant, { date }, new Date(), 2);
  expect(first.more).toBe(true);
  expect(first.outcomes).toHaveLength(2);
  const second = await startMerchantGroups(merchant, { date }, new Date(), 2);
  expect(second.more).toBe(false);
  expect(second.outcomes).toHaveLength(1);
  const started = [...first.outcomes, ...second.outcomes];
  expect(started.filter((o) => 'executionArn' in o)).toHaveLength(3);
  expect(new Set(started.map((o) => o.paymentGroupId))).toEqual(new Set(created));
});

test('defect: retry-payments started every retry round the merchant had waiting in one request; it starts at most so many and says `more` until the last', async () => {
  const merchant = '32350000079';
  const profileId = await storedProfile(table, merchant);
  const waiting = [];
  for (let i = 0; i < 3; i++) {
    const { group, payments } = makeGroup(1, { merchantId: merchant, scheduleDate: '2031-07-01', profileId });
    await groupStore().createGroup(group, payments);
    // Processed, its retry round waiting (as a run that scheduled retries leaves it).
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.group(group.paymentGroupId),
        UpdateExpression: 'SET #status = :p, awaitingRetry = :t, retrySlot = :slot, processingAttempt = :one',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':p': 'processed', ':t': true, ':slot': '2031-07-02T10', ':one': 1 },
      }),
    );
    waiting.push(group.paymentGroupId);
  }
  process.env.STATE_MACHINE_ARN = ARN;
  reloadConfigForTests();
  const first = await retryNow(merchant, new Date(), 2);
  expect(first.more).toBe(true);
  expect(first.outcomes).toHaveLength(2);
  const second = await retryNow(merchant, new Date(), 2);
  expect(second.more).toBeUndefined();
  expect(second.outcomes).toHaveLength(1);
  const started = [...first.outcomes, ...second.outcomes];
  expect(started.filter((o) => 'executionArn' in o)).toHaveLength(3);
  expect(new Set(started.map((o) => o.paymentGroupId))).toEqual(new Set(waiting));
});
