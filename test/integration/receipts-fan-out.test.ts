/**
 * Issue 25, defect 8 ("receipts for a large group take half an hour"): EmitReceipts queued one
 * receipt after another, one page after another (about 50 a second: 100,000 receipts in about 33
 * minutes). Receipts now fan out like processing: the state machine's Map runs the group's key
 * ranges at once (up to PROCESS_FAN_OUT) and each page queues its receipts concurrently, bounded.
 *
 * The real state machine file (aws-local-stepfunctions) with the real task handlers on DynamoDB
 * Local, for a group whose payments are answered already (AuthorizeBatch charges nothing): what is
 * asserted is the shape of the work (ranges at once, writes in flight together, every receipt
 * queued once, the group out of the due index at the end), never a duration.
 */
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { PROCESS_GROUP_DEFINITION, processGroupTasks } from '#contract/processing';
import type { Payment } from '#domain/groups';
import { saleAuthResponse } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { mapLimit } from '#shared/concurrency';
import { reloadConfigForTests } from '#shared/config';
import { transactionIdOf } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoGroupStore } from '#store/groups';
import { OutboxStore } from '#store/outbox';
import { DynamoPayorStore } from '#store/payors';
import { DynamoTransactionStore } from '#store/transactions';
import { makeGroup, makePayor, transaction } from '#support/fixtures/index';
import { createTestTable, type TestTable } from '#support/ddb';

const MERCHANT = '32350000001';
/**
 * Three batches of 50: three key ranges (PROCESS_FAN_OUT 8), two pages of receipts each. The
 * shape of production's 250-payment batches at a fifth of the writes (750 payments took minutes of
 * a busy CI machine's DynamoDB Local to set up).
 */
const BATCH = 50;
const COUNT = 3 * BATCH;
const PAGE = 30;

let table: TestTable;
const context = {
  functionName: 'test',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.RECEIPTS_PAGE_SIZE = String(PAGE);
  process.env.PROCESS_BATCH_SIZE = String(BATCH);
  reloadConfigForTests();
});
afterAll(async () => {
  delete process.env.RECEIPTS_PAGE_SIZE;
  delete process.env.PROCESS_BATCH_SIZE;
  reloadConfigForTests();
  await table.drop();
});

/** A claimed group of COUNT payments, each answered Approved (sale recorded, settled) and asking for a receipt. */
async function answeredGroup() {
  const { payor, method } = makePayor(MERCHANT, { email: 'parent@example.com' });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const { group, payments } = makeGroup(COUNT, { merchantId: MERCHANT, scheduleDate: '2031-06-01' });
  const settled = new Date(Date.now() - 60_000).toISOString();
  const sales = new DynamoTransactionStore(table.db, table.tableName);
  const answered: Payment[] = await mapLimit(payments, 16, async (p) => {
    const txn = await sales.recordSale(
      transaction({
        transactionId: transactionIdOf(p.paymentId),
        merchantId: MERCHANT,
        paymentId: p.paymentId,
        profileId,
        payorId: payor.payorId,
        savedPaymentMethodId: method.savedPaymentMethodId,
        amountCents: p.amountCents,
        approvedCents: p.amountCents,
        settlesAt: settled,
        processorKey: `payment:${p.paymentId}`,
      }),
    );
    return {
      ...p,
      profileId,
      sendEmailReceipt: true,
      authResponse: saleAuthResponse(transactionView(txn, [], new Date(Date.now() - 120_000))),
    };
  });
  await new DynamoGroupStore(table.db, table.tableName).createGroup(group, answered);
  const claim = await new DynamoClaimStore(table.db, table.tableName).claim(group, new Date());
  if (!claim.claimed) throw new Error('not claimed');
  return { group, payments: answered, executionName: claim.executionName };
}

test('defect 8: receipts for a large group are queued over its key ranges at once, each page concurrently, every receipt once', async () => {
  const { group, payments, executionName } = await answeredGroup();

  // In flight at once: receipts tasks, and outbox writes.
  const gauge = () => {
    let now = 0;
    let max = 0;
    return {
      enter: () => (max = Math.max(max, ++now)),
      leave: () => void now--,
      get max() {
        return max;
      },
    };
  };
  const tasks = gauge();
  const writes = gauge();
  const putOnce = OutboxStore.prototype.putOnce;
  const spy = jest.spyOn(OutboxStore.prototype, 'putOnce').mockImplementation(async function (
    this: OutboxStore,
    item,
  ) {
    writes.enter();
    try {
      return await putOnce.call(this, item);
    } finally {
      writes.leave();
    }
  });
  const receiptTasks = new Set(['EmitReceipts']);
  const handlers: Record<string, (input: never) => Promise<unknown>> = {};
  const seen: unknown[] = [];
  for (const task of processGroupTasks) {
    const { handler } = (await import(`../../lambdas/${task.handler}`)) as {
      handler: (input: unknown, context: Context) => Promise<unknown>;
    };
    handlers[task.state] = async (input: never) => {
      if (!receiptTasks.has(task.state)) return handler(input, context);
      seen.push(input);
      tasks.enter();
      try {
        return await handler(input, context);
      } finally {
        tasks.leave();
      }
    };
  }
  // Production's settlement clock: the plain Wait, for a cut-off already past.
  const text = readFileSync(PROCESS_GROUP_DEFINITION, 'utf8').replace(/\$\{(\w+)\}/g, (_m, name: string) =>
    name === 'SettlementClock' ? 'cut-off' : `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
  );
  const machine = new StateMachine(JSON.parse(text) as StateMachineDefinition, {
    validationOptions: { checkArn: false },
  });
  const output = (await machine.run(
    { paymentGroupId: group.paymentGroupId, merchantId: MERCHANT, executionName },
    {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides: { WaitForSettlement: 0 },
      },
    },
  ).result) as { receiptsQueued?: number };
  spy.mockRestore();

  // Every receipt queued once (one outbox item per payment), and the group out of the due index.
  expect(output.receiptsQueued).toBe(COUNT);
  const outbox = new OutboxStore(table.db, table.tableName);
  const items = await mapLimit(payments, 32, (p) => outbox.get(`receipt:${p.paymentId}`));
  expect(items.filter((i) => i?.kind === 'receipt' && i.recipient === 'parent@example.com')).toHaveLength(
    COUNT,
  );
  expect(await new DynamoClaimStore(table.db, table.tableName).read(group.paymentGroupId)).toMatchObject({
    status: 'processed',
    due: false,
  });

  // The shape of the work: the group's key ranges at once, and receipts written together.
  expect(tasks.max).toBeGreaterThan(1);
  expect(writes.max).toBeGreaterThan(tasks.max);
  // Each page is a bounded task: no task was given more than one page of payments.
  expect(seen.length).toBeGreaterThanOrEqual(Math.ceil(COUNT / PAGE));
}, 120_000);

test('defect: a payment whose debit was returned (its receipt sent) and then recovered by its retry got no receipt for the charge that stands: the retry round found the first receipt’s id taken; it gets one of its own', async () => {
  const { queueReceiptsPage } = await import('#core/receipts');
  const { attemptTransactionId } = await import('#shared/ids');
  const { attemptOf } = await import('#domain/groups');
  const { payor, method } = makePayor(MERCHANT, { email: 'parent@example.com' });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const { group, payments } = makeGroup(1, { merchantId: MERCHANT, scheduleDate: '2031-06-01' });
  const p = payments[0]!;
  const outbox = new OutboxStore(table.db, table.tableName);
  const sale = (attempt: number) =>
    new DynamoTransactionStore(table.db, table.tableName).recordSale(
      transaction({
        transactionId:
          attempt === 1 ? transactionIdOf(p.paymentId) : attemptTransactionId(p.paymentId, attempt),
        merchantId: MERCHANT,
        paymentId: p.paymentId,
        ...(attempt > 1 && { attempt }),
        profileId,
        payorId: payor.payorId,
        savedPaymentMethodId: method.savedPaymentMethodId,
        amountCents: p.amountCents,
        approvedCents: p.amountCents,
        settlesAt: new Date(Date.now() - 60_000).toISOString(),
      }),
    );
  const authOf = async (attempt: number) =>
    saleAuthResponse(transactionView(await sale(attempt), [], new Date(Date.now() - 120_000)));
  // The first charge: approved, its receipt sent, then returned (nsf); the retry approved.
  const first = { ...(await authOf(1)), status: 'Returned' as const };
  const second = await authOf(2);
  const recovered: Payment = {
    ...p,
    profileId,
    sendEmailReceipt: true,
    authResponse: second,
    attempts: [attemptOf(1, first), attemptOf(2, second, 1)],
    retry: { status: 'succeeded' },
  };
  await new DynamoGroupStore(table.db, table.tableName).createGroup(group, [recovered]);
  await outbox.putOnce({
    outboxId: `receipt:${p.paymentId}`,
    kind: 'receipt',
    recipient: 'parent@example.com',
    status: 'sent',
    attempts: 1,
    createdAt: new Date().toISOString(),
    paymentGroupId: group.paymentGroupId,
    data: {
      merchantName: 'Springfield Elementary',
      amountCents: p.amountCents,
      approvedCents: p.amountCents,
      maskedAccountNumber: '********6789',
      accountType: 'CHECKING',
      transactionId: transactionIdOf(p.paymentId),
      date: '2031-06-01',
      paymentId: p.paymentId,
    },
  });

  // The retry round's receipts.
  const state = {
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    receiptRange: 0,
    receiptCursor: null,
    upTo: null,
    receiptsDone: false,
    receiptsQueued: 0,
  };
  expect(await queueReceiptsPage(state)).toMatchObject({ receiptsQueued: 1 });
  const receipt = await outbox.get(`receipt:${p.paymentId}:2`);
  expect(receipt).toMatchObject({ kind: 'receipt', data: { transactionId: second.transactionId } });
  // Queued again (a re-run), nothing new.
  expect(await queueReceiptsPage(state)).toMatchObject({ receiptsQueued: 0 });
});
