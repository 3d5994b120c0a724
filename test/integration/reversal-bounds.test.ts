/**
 * Bounds of reversals. Refunds the processor refuses: each gives its place back on the sale
 * (refundCount leaves it out) but stays listed, on the sale and on a scheduled payment (its
 * voidOrRefundResponses, one DynamoDB item of at most 400 KB). After MAX_FAILED_REFUNDS_PER_SALE
 * of them a sale takes no more, so neither record grows without end (a payment's item past 400 KB
 * could never be refunded again; a sale's answer past Lambda's 6 MB could never be read). And the
 * background void-or-refund's batches: as many as the group's payments not deleted need.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { refundSale } from '#core/reversals';
import { runSale } from '#core/sale';
import { voidOrRefundGroup } from '#core/void-or-refund';
import { noCounts, type ReversalState } from '#core/void-or-refund-state';
import { handler as reverseBatch } from '#lambdas/void-or-refund/reverse-batch';
import { MAX_FAILED_REFUNDS_PER_SALE } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { BadRequestError } from '#shared/errors';
import { newId } from '#shared/ids';
import { groupStore } from '#store/groups';
import { batchWriteAll } from '#store/items';
import { keys } from '#store/keys';
import { paymentStore } from '#store/payments';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeGroup } from '#support/fixtures/index';
import { FaultyProcessor } from '#support/processor-double';
import { chargeScheduledPayment, saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
let processor: FaultyProcessor;
const MERCHANT = '32350000002';
/** A daily cut-off 12 hours from now: the sales here settle then, and are refunded after it. */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(Date.now() / 1000) + 43_200) % 86_400 };
const settled = () => new Date(Date.now() + 2 * 86_400_000);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  processor = new FaultyProcessor(new SandboxProcessor(ddb(), table.tableName, SCHEDULE));
  useProcessor(processor);
});
afterEach(() => processor.clear());
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** The sale as MAX_FAILED_REFUNDS_PER_SALE - `left` refused refunds leave its count. */
const refusedBefore = (transactionId: string, left: number) =>
  table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.transaction(transactionId),
      UpdateExpression: 'SET failedRefundCount = :n',
      ExpressionAttributeValues: { ':n': MAX_FAILED_REFUNDS_PER_SALE - left },
    }),
  );
const refundCalls = () => processor.calls.filter((c) => c.kind === 'REFUND').length;

test('defect: a sale took refunds the processor refused without end (each listed on its answer, which passed 6 MB); after the most it takes, a refund is refused (400) before the processor is asked', async () => {
  const txn = await runSale(
    saleRequest(MERCHANT, await storedProfile(table, MERCHANT, 'ok'), 5000),
    new Date(),
  );
  await refusedBefore(txn.transactionId, 1);
  processor.refundFault = 'decline';
  const last = await refundSale(MERCHANT, txn.transactionId, 5000, newId(), settled());
  expect(last.refund.status).toBe('Failed');
  expect(last.transaction).toMatchObject({ failedRefundCount: MAX_FAILED_REFUNDS_PER_SALE, refundCount: 0 });

  processor.refundFault = 'none';
  const calls = refundCalls();
  const refused = refundSale(MERCHANT, txn.transactionId, 5000, newId(), settled());
  await expect(refused).rejects.toBeInstanceOf(BadRequestError);
  await expect(refused).rejects.toThrow(
    `has had ${MAX_FAILED_REFUNDS_PER_SALE} refunds refused by the processor, the most a sale takes`,
  );
  expect(refundCalls()).toBe(calls);
  expect((await transactionStore().find(txn.transactionId))!.refunds).toHaveLength(1);
});

/** A one-payment group, its payment charged and approved. */
async function chargedPayment() {
  const profile = await storedProfile(table, MERCHANT, 'ok');
  const { group, payments } = makeGroup(1, { merchantId: MERCHANT, scheduleDate: '2031-05-01' });
  const payment = { ...payments[0]!, profileId: profile };
  await groupStore().createGroup(group, [payment]);
  const txn = await chargeScheduledPayment(MERCHANT, profile, payment);
  return { group, payment, transactionId: txn.transactionId };
}

test("defect: a group's void-or-refund of a payment whose refunds the processor refused grew its voidOrRefundResponses without end (past 400 KB it could never be refunded); after the most a sale takes, it is skipped", async () => {
  const { group, payment, transactionId } = await chargedPayment();
  const reverse = () => voidOrRefundGroup(group.paymentGroupId, MERCHANT, [payment.paymentId], settled());
  const responses = async () =>
    (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!.voidOrRefundResponses ?? [];

  await refusedBefore(transactionId, 1);
  processor.refundFault = 'decline';
  expect((await reverse()).outcomes[0]).toMatchObject({ outcome: 'failed' });
  expect(await responses()).toHaveLength(1);

  processor.refundFault = 'none';
  const calls = refundCalls();
  expect((await reverse()).outcomes[0]).toMatchObject({
    outcome: 'skipped',
    reason: `its sale has had ${MAX_FAILED_REFUNDS_PER_SALE} refunds refused by the processor, the most a sale takes`,
  });
  expect(await responses()).toHaveLength(1);
  expect(refundCalls()).toBe(calls);
});

test("defect: the background void-or-refund's batch was the next 250 payments, deleted ones included (which leave paymentCount, so nothing bounds them): a group with many deleted took a task, with its history events, for every 250; a batch is 250 payments not deleted, as processing's", async () => {
  const { group, payment } = await chargedPayment();
  const raw = (
    await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.payment(group.paymentGroupId, payment.paymentId),
      }),
    )
  ).Item!;
  const deleted = Array.from({ length: 999 }, () => {
    const paymentId = newId();
    const item = {
      ...raw,
      ...keys.payment(group.paymentGroupId, paymentId),
      paymentId,
      deleted: true,
      authResponse: null,
    };
    return { PutRequest: { Item: item } };
  });
  await batchWriteAll(table.db, table.tableName, deleted, 60_000);
  const context = {
    functionName: 'reverse-batch',
    awsRequestId: 'r',
    getRemainingTimeInMillis: () => 600_000,
  };
  let state: ReversalState = {
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    generation: 1,
    proceed: true,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:vr:vr-1',
    startedAt: new Date().toISOString(),
    cursor: null,
    counts: noCounts(),
    batches: 0,
  };
  do state = await reverseBatch(state, context as never);
  while (state.cursor !== null && state.batches < 10);
  expect(state.counts).toMatchObject({ voided: 1 });
  expect(state.batches).toBe(1);
}, 60_000);
