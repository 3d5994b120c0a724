/**
 * Defect "a processor outage is e-mailed to the payor as a decline": a scheduled
 * payment with `sendDeclineNotification` whose charge the processor never answered (the batch ran
 * out of retries: FailBatch gives it up, `status: "Failed"`, 96) gets the payor's *decline* e-mail
 * (core/attempts.ts declineNotice: every answer but Approved), which tells the payor the payment
 * "was declined" and to "update your payment method ... or contact your bank", and quotes the
 * state machine's error name as the bank's reason ("Processing failed: ProcessorUnavailable after
 * retries; not charged"). docs/product.md: the decline e-mail goes "after each declined attempt";
 * a Failed charge is not a decline (its own count, `failedCount`, and event, `payment.failed`):
 * the payor's card and bank are not at fault and nothing they do changes it.
 *
 * Against DynamoDB Local, through the real FailBatch task (lambdas/process-group/fail-batch.ts) on
 * a claimed group; the e-mail rendered from the outbox item as the notifier would send it.
 */
import type { Context } from 'aws-lambda';
import { newGroup, newPayment } from '#domain/groups';
import { declineOutboxId, renderEmail } from '#domain/notifications';
import type { BatchState } from '#domain/processing';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoGroupStore } from '#store/groups';
import { OutboxStore } from '#store/outbox';
import { DynamoPaymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

type Task = (input: unknown, context: Context) => Promise<unknown>;
const context = {
  functionName: 'test',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

let table: TestTable;
let failBatch: Task;
const MERCHANT = '32350000001';

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  useProcessor(new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 }));
  failBatch = ((await import('#lambdas/process-group/fail-batch')) as { handler: Task }).handler;
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

test('defect: a charge the processor never answered (Failed, 96) sends the payor the decline e-mail: "declined", "contact your bank", the error name as the reason', async () => {
  const { payor, method } = makePayor(MERCHANT, { email: `parent-${newId()}@example.com` });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: '2031-09-01', scheduleHour: 9, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const payment = newPayment(
    {
      profileId: `${payor.payorId}/${method.savedPaymentMethodId}`,
      amount: 45.5,
      sendDeclineNotification: true,
    },
    group,
    newId(),
    now,
  );
  group.paymentCount = 1;
  group.totalCents = payment.amountCents;
  await new DynamoGroupStore(table.db, table.tableName).createGroup(group, [payment]);
  const claim = await new DynamoClaimStore(table.db, table.tableName).claim(group, now);
  expect(claim.claimed).toBe(true);

  // AuthorizeBatch ran out of retries with the processor down: the state machine calls FailBatch.
  const state: BatchState & { error: { Error: string; Cause: string } } = {
    paymentGroupId: group.paymentGroupId,
    merchantId: MERCHANT,
    allowPartial: false,
    cursor: null,
    upTo: null,
    totals: {
      approved: 0,
      partial: 0,
      declined: 0,
      failed: 0,
      skipped: 0,
      approvedCents: 0,
      settlesAt: null,
    },
    batches: 0,
    error: { Error: 'ProcessorUnavailable', Cause: '1 of 1 payments of batch 1 not answered' },
  };
  await failBatch(state, context);

  const stored = await new DynamoPaymentStore(table.db, table.tableName).getPayment(
    group.paymentGroupId,
    payment.paymentId,
  );
  expect(stored?.authResponse).toMatchObject({ status: 'Failed', responseCode: '96' });

  // What the payor is sent for it (if anything): never that the payment was declined by their
  // bank and that they should change their method or call the bank.
  const item = await new OutboxStore(table.db, table.tableName).get(declineOutboxId(payment.paymentId, 1));
  const email = item ? renderEmail(item) : undefined;
  expect({ subject: email?.subject, text: email?.text }).not.toEqual({
    subject: expect.stringMatching(/declined/i),
    text: expect.stringMatching(/contact your bank|ProcessorUnavailable/),
  });
});
