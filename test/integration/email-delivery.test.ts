/**
 * Issue 13, defect 10 (the e-mail delivery promise): delivery is at least once, with a stable
 * message id per outbox item. A notifier that dies after SES accepted a message leaves the item
 * claimed; when the claim expires the item is sent again, and that second send carries the same
 * message id (the MESSAGE_ID_HEADER) as the first. DynamoDB Local holds the outbox; SES is mocked
 * at the SDK (the real mailer builds the request).
 */
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { deleteGroup, updateGroup } from '#core/groups';
import { newGroup, newPayment } from '#domain/groups';
import { noticeOutboxId, type OutboxItem } from '#domain/notifications';
import { reloadConfigForTests } from '#shared/config';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { MESSAGE_ID_HEADER, useMailer } from '#shared/mailer';
import { DynamoGroupStore } from '#store/groups';
import { listOutbox, OutboxStore, requeue } from '#store/outbox';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { makePayor, receiptOutboxItem } from '#support/fixtures/index';
import { useOutboxQueue, type QueuedMessage } from '#shared/outbox-queue';
import { createTestTable, type TestTable } from '#support/ddb';

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
const context = {
  functionName: 'notifier',
  awsRequestId: 'req',
  getRemainingTimeInMillis: () => 60_000,
} as Context;

const ses = mockClient(SESv2Client);
let table: TestTable;
let outbox: OutboxStore;
let notify: (outboxId: string) => Promise<SQSBatchResponse>;
/** Messages the notifier put back on its queue. */
const requeued: QueuedMessage[] = [];
const MERCHANT = '32350000001';

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SES_FROM_ADDRESS = 'payments@scheduled-payments.example';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  useMailer(undefined); // the real SES mailer
  useOutboxQueue({
    send: async (messages) => {
      requeued.push(...messages);
      return [];
    },
  });
  outbox = new OutboxStore(table.db, table.tableName);
  const { handler } = (await import('#lambdas/notifications/send-notifications')) as unknown as {
    handler: Handler;
  };
  notify = (outboxId) => handler({ Records: [queueRecord(outboxId)] }, context);
});
afterAll(async () => {
  ses.restore();
  await table.drop();
});

/** The queue message of a new outbox item, as the stream forwarder enqueues it. */
const queueRecord = (outboxId: string): SQSRecord => ({
  messageId: `m-${outboxId}`,
  receiptHandle: 'r',
  body: JSON.stringify({ outboxId, notReady: 0 }),
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(Date.now()),
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notifications',
  awsRegion: 'us-east-1',
});

/** A payment-scheduled notice of a payment of the group, waiting in the outbox. */
const scheduledNotice = (
  paymentGroupId: string,
  paymentId: string,
  amountCents: number,
  now: Date,
): OutboxItem => ({
  outboxId: noticeOutboxId(paymentId),
  kind: 'payment-scheduled',
  recipient: 'payor@example.com',
  status: 'pending',
  attempts: 0,
  createdAt: now.toISOString(),
  paymentGroupId,
  data: {
    merchantName: 'Springfield Elementary',
    amountCents,
    maskedAccountNumber: '************1111',
    accountType: 'VISA',
    scheduleDate: '2031-10-01',
    scheduleHour: 9,
    paymentId,
  },
});

const headersOfSends = () =>
  ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input.Content?.Simple?.Headers);

/** A pending group of one $12.50 payment (2031-10-01, 09:00) and its queued payment-scheduled notice. */
async function queuedNotice() {
  const now = new Date();
  const group = newGroup(
    { servicePayId: MERCHANT, scheduleDate: '2031-10-01', scheduleHour: 9, locationId: 1 },
    MERCHANT,
    newId(),
    now,
  );
  const { payor, method } = makePayor(MERCHANT);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const payment = newPayment({ profileId, amount: 12.5 }, group, newId(), now);
  group.paymentCount = 1;
  group.totalCents = payment.amountCents;
  await new DynamoGroupStore(table.db, table.tableName).createGroup(group, [payment]);
  const item = scheduledNotice(group.paymentGroupId, payment.paymentId, payment.amountCents, now);
  expect(await outbox.putOnce(item)).toBe(true);
  return { group, payment, item };
}

describe('issue 13, defect 10: the e-mail delivery promise', () => {
  test('a redelivery after an expired claim (the notifier died after SES accepted) carries the same message id', async () => {
    const { item } = await queuedNotice();
    ses.on(SendEmailCommand).resolvesOnce({ MessageId: 'ses-1' }).resolvesOnce({ MessageId: 'ses-2' });

    // SES accepts the message, then the notifier cannot record it (it dies, in effect).
    const died = jest.spyOn(OutboxStore.prototype, 'markSent').mockRejectedValue(new Error('gone'));
    await notify(item.outboxId);
    died.mockRestore();
    expect(await outbox.get(item.outboxId)).toMatchObject({ status: 'sending' });

    // The queue delivers the message again: while the claim is live, nothing is sent; the message
    // goes back on the queue, delayed, for when the claim may have expired.
    expect((await notify(item.outboxId)).batchItemFailures).toEqual([]);
    expect(headersOfSends()).toHaveLength(1);
    expect(requeued).toEqual([{ message: { outboxId: item.outboxId, notReady: 1 }, delaySeconds: 1 }]);

    // The claim expires: the next delivery sends again, with the same message id.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.outbox(item.outboxId),
        UpdateExpression: 'SET leaseUntil = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    expect((await notify(item.outboxId)).batchItemFailures).toEqual([]);
    const stable = [{ Name: MESSAGE_ID_HEADER, Value: item.outboxId }];
    expect(headersOfSends()).toEqual([stable, stable]);
    expect(await outbox.get(item.outboxId)).toMatchObject({ status: 'sent', messageId: 'ses-2' });

    // Sent and recorded: a further delivery sends nothing.
    await notify(item.outboxId);
    expect(headersOfSends()).toHaveLength(2);
  }, 30_000);
});

describe('issue 10, item 6: e-mails SES kept throttling are found and sent again', () => {
  test('a stuck item (throttles, no attempt) is listed by the runbook view and requeued as new', async () => {
    const outboxId = `receipt:${newId()}`;
    const item = receiptOutboxItem(outboxId);
    expect(await outbox.putOnce(item)).toBe(true);
    expect('item' in (await outbox.claim(outboxId, new Date()))).toBe(true);
    await outbox.markStuck(outboxId, 'throttled 141 times; last: TooManyRequestsException', 'throttled');

    const stuck = await listOutbox(table.db, table.tableName, 'stuck');
    expect(stuck.map((i) => i.outboxId)).toContain(outboxId);
    expect(stuck.find((i) => i.outboxId === outboxId)).toMatchObject({
      status: 'stuck',
      attempts: 0,
      throttles: 1,
      lastError: 'throttled 141 times; last: TooManyRequestsException',
    });
    expect((await listOutbox(table.db, table.tableName, 'failed')).map((i) => i.outboxId)).not.toContain(
      outboxId,
    );

    const fresh = await requeue(table.db, table.tableName, outboxId);
    expect(fresh).toMatchObject({ status: 'pending', attempts: 0 });
    const stored = await outbox.get(outboxId);
    expect(stored).toMatchObject({ status: 'pending', attempts: 0 });
    expect(stored).not.toHaveProperty('throttles');
    expect(stored).not.toHaveProperty('lastError');
  }, 30_000);
});

test('defect: a payment-scheduled notice still waiting when its group was rescheduled and its amount changed named the slot and amount it was written with; it names them as they are when it goes out', async () => {
  const { group, payment, item } = await queuedNotice();
  // While it waits (a backlog at the SES rate): the group moves to 3 October, 15:00, the amount to 20.
  await updateGroup(
    group.paymentGroupId,
    MERCHANT,
    { scheduleDate: '2031-10-03', scheduleHour: 15 },
    new Date(),
  );
  expect(await paymentStore().replacePayment(payment, { ...payment, amountCents: 2000 }, new Date())).toBe(
    'ok',
  );
  ses.reset();
  ses.on(SendEmailCommand).resolves({ MessageId: 'ses-moved' });

  await notify(item.outboxId);

  const sent = ses.commandCalls(SendEmailCommand).map((call) => JSON.stringify(call.args[0].input.Content));
  expect(sent).toHaveLength(1);
  expect(sent[0]).toContain('2031-10-03');
  expect(sent[0]).toContain('15:00');
  expect(sent[0]).toContain('20.00');
  expect(sent[0]).not.toContain('2031-10-01');
  expect(sent[0]).not.toContain('12.50');
  expect(await outbox.get(item.outboxId)).toMatchObject({ status: 'sent' });
});

describe('a payment-scheduled notice whose payment will not be charged', () => {
  test.each(['its group', 'its payment'] as const)(
    'defect: the notice still waiting when %s was deleted (a backlog at the SES rate, throttling) was sent: it is not, and its item says why',
    async (deleted) => {
      const { group, payment, item } = await queuedNotice();
      if (deleted === 'its group') await deleteGroup(group.paymentGroupId, MERCHANT, new Date());
      else expect(await paymentStore().softDeletePayment(payment, new Date())).toBe('ok');
      ses.reset();
      ses.on(SendEmailCommand).resolves({ MessageId: 'ses-never' });

      await notify(item.outboxId);

      expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
      expect(await outbox.get(item.outboxId)).toMatchObject({
        status: 'failed',
        lastError: expect.stringMatching(/deleted before the notice went out/),
      });
    },
  );
});
