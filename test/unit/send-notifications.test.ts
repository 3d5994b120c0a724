import '#support/handlers/env';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { renderEmail, type OutboxItem, type RenderedEmail } from '#domain/notifications';
import { config } from '#shared/config';
import { useMailer } from '#shared/mailer';
import { useOutboxQueue, type QueuedMessage } from '#shared/outbox-queue';
import { handler } from '#lambdas/notifications/send-notifications';
import {
  awsError,
  ddbMock,
  group,
  GROUP_ID,
  lambdaContext,
  payment,
  PAYMENT_ID,
  storedPayment,
} from '#support/handlers/invoke';

const MAX_SEND_ATTEMPTS = config().maxSendAttempts;
const MAX_NOT_READY_RETRIES = config().maxNotReadyRetries;

type Handler = (event: SQSEvent, context: typeof lambdaContext) => Promise<SQSBatchResponse>;
const notify = (records: SQSRecord[]) => (handler as unknown as Handler)({ Records: records }, lambdaContext);

const OUTBOX_ID = 'notice:01890a5d-ac96-774b-bcce-b302099a8058';
const outboxKey = (id = OUTBOX_ID) => ({ pk: `OUTBOX#${id}`, sk: 'OUTBOX' });
const groupKey = { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' };

/** The queue message of an outbox item (what the forwarder, or a retry, put on the queue). */
function record(over: { outboxId?: string; notReady?: number; id?: string } = {}): SQSRecord {
  return {
    messageId: over.id ?? 'm-1',
    receiptHandle: 'r',
    body: JSON.stringify({ outboxId: over.outboxId ?? OUTBOX_ID, notReady: over.notReady ?? 0 }),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '1',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notifications',
    awsRegion: 'us-east-1',
  };
}

const item = (over: Partial<OutboxItem> = {}): OutboxItem =>
  ({
    outboxId: OUTBOX_ID,
    kind: 'payment-scheduled',
    recipient: 'payor@example.com',
    status: 'sending',
    attempts: 0,
    createdAt: new Date().toISOString(),
    paymentGroupId: GROUP_ID,
    data: {
      merchantName: 'Springfield Elementary',
      amountCents: 1250,
      maskedAccountNumber: '************1111',
      accountType: 'VISA',
      scheduleDate: '2099-06-01',
      scheduleHour: 9,
      paymentId: '01890a5d-ac96-774b-bcce-b302099a8058',
    },
    ...over,
  }) as OutboxItem;

const sent: { to: string; email: RenderedEmail }[] = [];
let sendError: Error | undefined;
/** What the notifier put back on its queue; `queueDown` makes enqueueing fail. */
const requeued: QueuedMessage[] = [];
let queueDown = false;

beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().callsFake((input: unknown) => {
    throw new Error(`unmocked DynamoDB command: ${JSON.stringify(input)}`);
  });
  sent.length = 0;
  sendError = undefined;
  requeued.length = 0;
  queueDown = false;
  useOutboxQueue({
    async send(messages) {
      if (queueDown) return messages.map((_m, i) => i);
      requeued.push(...messages);
      return [];
    },
  });
  useMailer({
    async send(to, email) {
      if (sendError) throw sendError;
      sent.push({ to, email });
      return { messageId: `msg-${sent.length}` };
    },
  });
  groupExists(true);
});
afterAll(() => {
  useMailer(undefined);
  useOutboxQueue(undefined);
});

/** The claim answers with this item (as stored: keys included); every other update succeeds. */
function claimable(claimed: OutboxItem | 'refused' | Error) {
  ddbMock.on(UpdateCommand).callsFake((input: { ReturnValues?: string }) => {
    if (input.ReturnValues !== 'ALL_NEW') return {};
    if (claimed === 'refused') throw awsError('ConditionalCheckFailedException');
    if (claimed instanceof Error) throw claimed;
    return { Attributes: { ...outboxKey(claimed.outboxId), entity: 'outbox', leaseUntil: 1, ...claimed } };
  });
}

/** The group (and the notice's payment, not deleted) as stored, or not committed yet. */
function groupExists(exists: boolean) {
  ddbMock
    .on(GetCommand, { Key: groupKey })
    .resolves(exists ? { Item: { ...groupKey, entity: 'group', ...group() } } : {});
  storedPayment(payment());
}

interface UpdateInput {
  Key: Record<string, string>;
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeValues: Record<string, unknown>;
  ReturnValues?: string;
}
const updates = (): UpdateInput[] =>
  ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input as unknown as UpdateInput);
/** The updates after the claim, named by the status they set. */
const finishes = () =>
  updates()
    .filter((u) => u.ReturnValues !== 'ALL_NEW')
    .map((u) => ({
      status: Object.entries(u.ExpressionAttributeValues).find(
        ([k]) => k === ':sent' || k === ':pending' || k === ':failed' || k === ':stuck',
      )?.[1],
      values: u.ExpressionAttributeValues,
      update: u,
    }));

describe('the notifier (SQS queue → SES)', () => {
  it(`gives up after ${MAX_SEND_ATTEMPTS} attempts and ${MAX_NOT_READY_RETRIES} not-ready retries by default`, () => {
    expect(MAX_SEND_ATTEMPTS).toBe(5);
    expect(MAX_NOT_READY_RETRIES).toBe(140);
  });

  it('reports a message that is not an outbox message (it reaches the dead-letter queue)', async () => {
    const bad = { ...record({ id: 'bad' }), body: '{"nothing":1}' };
    expect(await notify([bad])).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('claims the item, checks the group and the payment (two reads), sends once naming them as they are now, and marks it sent', async () => {
    const claimed = item({ attempts: 2 });
    claimable(claimed);
    const result = await notify([record()]);

    expect(result).toEqual({ batchItemFailures: [] });
    const [claim, done] = updates();
    expect(claim).toMatchObject({
      TableName: 't',
      Key: outboxKey(),
      UpdateExpression: 'SET #status = :sending, leaseUntil = :lease',
      ConditionExpression: '#status = :pending OR (#status = :sending AND leaseUntil < :now)',
      ReturnValues: 'ALL_NEW',
    });
    expect(ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([
      groupKey,
      { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}` },
    ]);
    // The stored payment's amount (19.99, the notice was queued with 12.50) and the group's slot.
    const { scheduleDate, scheduleHour } = group();
    const now = {
      ...claimed,
      data: { ...claimed.data, amountCents: payment().amountCents, scheduleDate, scheduleHour },
    };
    expect([claimed.data, payment().amountCents]).toEqual([
      expect.objectContaining({ amountCents: 1250 }),
      1999,
    ]);
    expect(sent).toEqual([{ to: 'payor@example.com', email: renderEmail(now as OutboxItem) }]);
    expect(updates()).toHaveLength(2);
    expect(done).toMatchObject({
      Key: outboxKey(),
      ConditionExpression: '#status = :sending',
      ExpressionAttributeValues: { ':sent': 'sent', ':m': 'msg-1', ':one': 1 },
    });
    expect(done!.UpdateExpression).toContain('REMOVE leaseUntil');
  });

  it.each(['sent', 'failed', 'stuck'] as const)(
    'sends nothing when the claim is refused because the item is %s',
    async (status) => {
      claimable('refused');
      ddbMock
        .on(GetCommand, { Key: outboxKey(item().outboxId) })
        .resolves({ Item: { ...outboxKey(item().outboxId), entity: 'outbox', ...item({ status }) } });
      const result = await notify([record()]);
      expect(result).toEqual({ batchItemFailures: [] });
      expect(sent).toHaveLength(0);
      expect(updates()).toHaveLength(1);
      expect(requeued).toEqual([]);
    },
  );

  it('puts the message back, delayed, when another delivery holds a live claim (it may yet die mid-send)', async () => {
    claimable('refused');
    ddbMock.on(GetCommand, { Key: outboxKey(item().outboxId) }).resolves({
      Item: { ...outboxKey(item().outboxId), entity: 'outbox', ...item({ status: 'sending' }) },
    });
    const result = await notify([record({ id: '7' })]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(requeued).toEqual([{ message: { outboxId: OUTBOX_ID, notReady: 1 }, delaySeconds: 1 }]);
    expect(sent).toHaveLength(0);
  });

  it('does not send again when recording a sent e-mail fails', async () => {
    claimable(item());
    groupExists(true);
    let markSentCalls = 0;
    ddbMock
      .on(UpdateCommand)
      .callsFake((input: { ReturnValues?: string; ExpressionAttributeValues?: Record<string, unknown> }) => {
        if (input.ReturnValues === 'ALL_NEW')
          return {
            Attributes: { ...outboxKey(item().outboxId), entity: 'outbox', leaseUntil: 1, ...item() },
          };
        if (input.ExpressionAttributeValues?.[':sent'] === 'sent') {
          markSentCalls++;
          throw awsError('ThrottlingException', 'slow down');
        }
        return {};
      });
    const result = await notify([record()]);
    expect(sent).toHaveLength(1);
    expect(markSentCalls).toBe(3);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(updates().filter((u) => /#status = :pending, /.test(u.UpdateExpression))).toHaveLength(0);
  });

  // Issue 10, item 6: a throttled send used up an attempt, and MAX_SEND_ATTEMPTS throttles sent
  // the item to `failed`.
  it.each([0, MAX_SEND_ATTEMPTS - 1])(
    'a throttled send (item at %p attempts) counts a throttle, not an attempt, and goes back on the queue delayed',
    async (attempts) => {
      claimable(item({ attempts }));
      sendError = awsError('TooManyRequestsException', 'Maximum sending rate exceeded');
      const result = await notify([record({ id: '42', notReady: 3 })]);
      expect(result).toEqual({ batchItemFailures: [] });
      expect(finishes()).toHaveLength(1);
      expect(finishes()[0]).toMatchObject({
        status: 'pending',
        values: { ':e': 'TooManyRequestsException: Maximum sending rate exceeded', ':n': 1 },
      });
      expect(finishes()[0]!.update.UpdateExpression).toContain('ADD throttles :n');
      expect(finishes()[0]!.update.UpdateExpression).not.toContain('attempts');
      expect(finishes()[0]!.update.ConditionExpression).toBe('#status = :sending');
      expect(requeued).toHaveLength(1);
      expect(requeued[0]!.message).toEqual({ outboxId: OUTBOX_ID, notReady: 4 });
      // The 4th retry waits 4 to 8 seconds.
      expect(requeued[0]!.delaySeconds).toBeGreaterThanOrEqual(4);
      expect(requeued[0]!.delaySeconds).toBeLessThanOrEqual(8);
    },
  );

  it(`throttled for the ${MAX_NOT_READY_RETRIES + 1}th time: the item is stuck (never failed), with the reason`, async () => {
    claimable(item({ attempts: MAX_SEND_ATTEMPTS - 1 }));
    sendError = awsError('ThrottlingException', 'Daily message quota exceeded');
    const result = await notify([record({ notReady: MAX_NOT_READY_RETRIES })]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(requeued).toEqual([]);
    expect(finishes()).toHaveLength(1);
    expect(finishes()[0]).toMatchObject({
      status: 'stuck',
      values: {
        ':e': `throttled ${MAX_NOT_READY_RETRIES + 1} times; last: ThrottlingException: Daily message quota exceeded`,
        ':n': 1,
      },
    });
    expect(finishes()[0]!.update.UpdateExpression).toContain('ADD throttles :n');
  });

  it.each([0, 1, MAX_SEND_ATTEMPTS - 2])(
    'a refused send after %p earlier attempts counts an attempt and goes back on the queue delayed',
    async (attempts) => {
      claimable(item({ attempts }));
      sendError = awsError('MessageRejected', 'Email address is not verified');
      const result = await notify([record({ notReady: 2 })]);
      expect(result).toEqual({ batchItemFailures: [] });
      expect(finishes()).toHaveLength(1);
      expect(finishes()[0]).toMatchObject({
        status: 'pending',
        values: { ':e': 'MessageRejected: Email address is not verified', ':n': 1 },
      });
      expect(finishes()[0]!.update.UpdateExpression).toContain('ADD attempts :n');
      // A refusal does not spend the not-ready retries.
      expect(requeued.map((q) => q.message)).toEqual([{ outboxId: OUTBOX_ID, notReady: 2 }]);
    },
  );

  it('a group not committed yet: released without counting anything, nothing sent, put back delayed', async () => {
    groupExists(false);
    claimable(item({ createdAt: new Date(Date.now() - 60_000).toISOString() }));
    const result = await notify([record()]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(requeued.map((q) => q.message)).toEqual([{ outboxId: OUTBOX_ID, notReady: 1 }]);
    expect(sent).toHaveLength(0);
    expect(finishes()).toHaveLength(1);
    expect(finishes()[0]).toMatchObject({
      status: 'pending',
      values: { ':e': 'group not committed yet', ':n': 0 },
    });
  });

  it('a group still missing 5 minutes after the item was written: marked failed, nothing sent', async () => {
    groupExists(false);
    claimable(item({ createdAt: new Date(Date.now() - 5 * 60_000 - 1000).toISOString() }));
    const result = await notify([record()]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(sent).toHaveLength(0);
    expect(finishes()).toHaveLength(1);
    expect(finishes()[0]).toMatchObject({
      status: 'failed',
      values: { ':e': 'the group was never committed; nothing to notify' },
    });
  });

  it('a throttled claim (the table) reports the message: SQS hands it out again', async () => {
    claimable(awsError('ProvisionedThroughputExceededException'));
    const result = await notify([record({ id: '9' })]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '9' }] });
    expect(sent).toHaveLength(0);
  });

  it('a retry that cannot be enqueued reports its message: SQS hands it out again', async () => {
    claimable(item());
    sendError = awsError('TooManyRequestsException', 'Maximum sending rate exceeded');
    queueDown = true;
    expect(await notify([record({ id: '5' })])).toEqual({ batchItemFailures: [{ itemIdentifier: '5' }] });
  });

  it('handles each message of a batch on its own: only the broken ones are reported', async () => {
    const a = item({ outboxId: 'notice:a', recipient: 'a@example.com' });
    const b = item({ outboxId: 'notice:b', recipient: 'b@example.com' });
    const c = item({ outboxId: 'notice:c', recipient: 'c@example.com' });
    const claimOf = new Map<string, OutboxItem | Error>([a, b, c].map((i) => [i.outboxId, i]));
    ddbMock.on(UpdateCommand).callsFake((input: UpdateInput) => {
      if (input.ReturnValues !== 'ALL_NEW') return {};
      const claimed = claimOf.get(input.Key.pk!.slice('OUTBOX#'.length))!;
      if (claimed instanceof Error) throw claimed;
      return { Attributes: { ...outboxKey(claimed.outboxId), entity: 'outbox', ...claimed } };
    });
    useMailer({
      async send(to, email) {
        if (to === 'b@example.com') throw awsError('ServiceUnavailable');
        if (to === 'c@example.com' && sent.length === 1) throw awsError('TooManyRequestsException');
        sent.push({ to, email });
        return { messageId: `msg-${to}` };
      },
    });
    ddbMock.on(GetCommand, { Key: outboxKey('notice:d') }).resolves({});
    claimOf.set('notice:d', new Error('table unreachable'));
    const result = await notify([
      record({ outboxId: 'notice:a', id: '1' }),
      record({ outboxId: 'notice:b', id: '2' }),
      record({ outboxId: 'notice:c', id: '3' }),
      record({ outboxId: 'notice:d', id: '4' }),
    ]);
    // b (refused) and c (throttled) go back on the queue; only d, whose delivery broke, is reported.
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '4' }] });
    expect(sent.map((s) => s.to)).toEqual(['a@example.com']);
    expect(requeued.map((q) => q.message.outboxId)).toEqual(['notice:b', 'notice:c']);
    expect(
      finishes().map((f) => [f.update.Key.pk, f.status, f.update.UpdateExpression.split(' ADD ')[1]]),
    ).toEqual([
      ['OUTBOX#notice:a', 'sent', 'attempts :one REMOVE leaseUntil'],
      ['OUTBOX#notice:b', 'pending', 'attempts :n REMOVE leaseUntil'],
      ['OUTBOX#notice:c', 'pending', 'throttles :n REMOVE leaseUntil'],
    ]);
  });

  it('renders receipts as well', async () => {
    const receipt = {
      ...item({ outboxId: 'receipt:p' }),
      kind: 'receipt',
      data: {
        merchantName: 'Springfield Elementary',
        amountCents: 1000,
        approvedCents: 1000,
        maskedAccountNumber: '************1111',
        accountType: 'VISA',
        transactionId: 't-1',
        date: '2099-06-01',
        paymentId: 'p',
      },
    } as OutboxItem;
    claimable(receipt);
    expect(await notify([record({ outboxId: 'receipt:p' })])).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([{ to: 'payor@example.com', email: renderEmail(receipt) }]);
    expect(sent[0]!.email.subject).toContain('receipt');
  });
});
