import './support/env';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { renderEmail, type OutboxItem, type RenderedEmail } from '#domain/notifications';
import { config } from '#shared/config';
import { useMailer } from '#shared/mailer';
import { handler } from '../../lambdas/notifications/send-notifications';
import { awsError, ddbMock, group, GROUP_ID, lambdaContext } from './support/api';

const MAX_SEND_ATTEMPTS = config().maxSendAttempts;

type Handler = (event: DynamoDBStreamEvent, context: typeof lambdaContext) => Promise<DynamoDBBatchResponse>;
const notify = (records: DynamoDBRecord[]) =>
  (handler as unknown as Handler)({ Records: records }, lambdaContext);

const OUTBOX_ID = 'notice:01890a5d-ac96-774b-bcce-b302099a8058';
const outboxKey = (id = OUTBOX_ID) => ({ pk: `OUTBOX#${id}`, sk: 'OUTBOX' });
const groupKey = { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' };

/** The stream record of a new outbox item (what the table's stream hands the notifier). */
function record(
  over: {
    eventName?: DynamoDBRecord['eventName'];
    entity?: string;
    outboxId?: string | null;
    seq?: string;
  } = {},
): DynamoDBRecord {
  const outboxId = over.outboxId === undefined ? OUTBOX_ID : over.outboxId;
  return {
    eventName: over.eventName ?? 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { pk: { S: `OUTBOX#${outboxId}` }, sk: { S: 'OUTBOX' } },
      NewImage: {
        pk: { S: `OUTBOX#${outboxId}` },
        sk: { S: 'OUTBOX' },
        entity: { S: over.entity ?? 'outbox' },
        ...(outboxId !== null && { outboxId: { S: outboxId } }),
        status: { S: 'pending' },
      },
      SequenceNumber: over.seq ?? '100',
      StreamViewType: 'NEW_IMAGE',
    },
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

beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().callsFake((input: unknown) => {
    throw new Error(`unmocked DynamoDB command: ${JSON.stringify(input)}`);
  });
  sent.length = 0;
  sendError = undefined;
  useMailer({
    async send(to, email) {
      if (sendError) throw sendError;
      sent.push({ to, email });
      return { messageId: `msg-${sent.length}` };
    },
  });
  groupExists(true);
});
afterAll(() => useMailer(undefined));

/** The claim answers with this item (as stored: keys included); every other update succeeds. */
function claimable(claimed: OutboxItem | 'refused' | Error) {
  ddbMock.on(UpdateCommand).callsFake((input: { ReturnValues?: string }) => {
    if (input.ReturnValues !== 'ALL_NEW') return {};
    if (claimed === 'refused') throw awsError('ConditionalCheckFailedException');
    if (claimed instanceof Error) throw claimed;
    return { Attributes: { ...outboxKey(claimed.outboxId), entity: 'outbox', leaseUntil: 1, ...claimed } };
  });
}

function groupExists(exists: boolean) {
  ddbMock
    .on(GetCommand, { Key: groupKey })
    .resolves(exists ? { Item: { ...groupKey, entity: 'group', ...group() } } : {});
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
        ([k]) => k === ':sent' || k === ':pending' || k === ':failed',
      )?.[1],
      values: u.ExpressionAttributeValues,
      update: u,
    }));

describe('the notifier (DynamoDB stream → SES)', () => {
  it(`gives up after ${MAX_SEND_ATTEMPTS} attempts by default`, () => {
    expect(MAX_SEND_ATTEMPTS).toBe(5);
  });

  it('ignores records that are not new outbox items', async () => {
    const result = await notify([
      record({ eventName: 'MODIFY' }),
      record({ eventName: 'REMOVE' }),
      record({ entity: 'payment' }),
      record({ entity: 'group' }),
      record({ outboxId: null }),
      { eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } },
    ]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(ddbMock.calls()).toHaveLength(0);
    expect(sent).toHaveLength(0);
  });

  it('claims the item, checks the group, sends once and marks it sent', async () => {
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
    expect(ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([groupKey]);
    expect(sent).toEqual([{ to: 'payor@example.com', email: renderEmail(claimed) }]);
    expect(updates()).toHaveLength(2);
    expect(done).toMatchObject({
      Key: outboxKey(),
      ConditionExpression: '#status = :sending',
      ExpressionAttributeValues: { ':sent': 'sent', ':m': 'msg-1', ':one': 1 },
    });
    expect(done!.UpdateExpression).toContain('REMOVE leaseUntil');
  });

  it.each(['sent', 'failed'] as const)(
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
    },
  );

  it('asks for the record again when another delivery holds a live claim (it may yet die mid-send)', async () => {
    claimable('refused');
    ddbMock.on(GetCommand, { Key: outboxKey(item().outboxId) }).resolves({
      Item: { ...outboxKey(item().outboxId), entity: 'outbox', ...item({ status: 'sending' }) },
    });
    const result = await notify([record({ seq: '7' })]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
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

  it.each([0, 1, MAX_SEND_ATTEMPTS - 2])(
    'a send failure after %p earlier attempts puts the item back to pending and reports the record',
    async (attempts) => {
      claimable(item({ attempts }));
      sendError = awsError('TooManyRequestsException', 'Maximum sending rate exceeded');
      const result = await notify([record({ seq: '42' })]);
      expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '42' }] });
      expect(finishes()).toHaveLength(1);
      expect(finishes()[0]).toMatchObject({
        status: 'pending',
        values: { ':e': 'TooManyRequestsException: Maximum sending rate exceeded', ':n': 1 },
      });
      expect(finishes()[0]!.update.ConditionExpression).toBe('#status = :sending');
    },
  );

  it(`at the ${MAX_SEND_ATTEMPTS}th failed attempt the item is marked failed and the record is not reported`, async () => {
    claimable(item({ attempts: MAX_SEND_ATTEMPTS - 1 }));
    sendError = awsError('MessageRejected', 'Email address is not verified');
    const result = await notify([record()]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(finishes()).toHaveLength(1);
    expect(finishes()[0]).toMatchObject({
      status: 'failed',
      values: { ':e': 'MessageRejected: Email address is not verified', ':one': 1 },
    });
  });

  it('a group not committed yet: released without counting an attempt, nothing sent, reported', async () => {
    groupExists(false);
    claimable(item({ createdAt: new Date(Date.now() - 60_000).toISOString() }));
    const result = await notify([record({ seq: '7' })]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
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

  it('a throttled claim reports the record for another delivery', async () => {
    claimable(awsError('ProvisionedThroughputExceededException'));
    const result = await notify([record({ seq: '9' })]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '9' }] });
    expect(sent).toHaveLength(0);
  });

  it('handles each record of a batch on its own: only the failing ones are reported', async () => {
    const a = item({ outboxId: 'notice:a', recipient: 'a@example.com' });
    const b = item({ outboxId: 'notice:b', recipient: 'b@example.com' });
    const c = item({ outboxId: 'notice:c', recipient: 'c@example.com' });
    const byId = new Map([a, b, c].map((i) => [i.outboxId, i]));
    ddbMock.on(UpdateCommand).callsFake((input: UpdateInput) => {
      if (input.ReturnValues !== 'ALL_NEW') return {};
      const claimed = byId.get(input.Key.pk!.slice('OUTBOX#'.length))!;
      return { Attributes: { ...outboxKey(claimed.outboxId), entity: 'outbox', ...claimed } };
    });
    useMailer({
      async send(to, email) {
        if (to === 'b@example.com') throw awsError('ServiceUnavailable');
        sent.push({ to, email });
        return { messageId: `msg-${to}` };
      },
    });
    const result = await notify([
      record({ outboxId: 'notice:a', seq: '1' }),
      record({ outboxId: 'notice:b', seq: '2' }),
      record({ outboxId: 'notice:c', seq: '3' }),
    ]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(sent.map((s) => s.to)).toEqual(['a@example.com', 'c@example.com']);
    expect(finishes().map((f) => [f.update.Key.pk, f.status])).toEqual([
      ['OUTBOX#notice:a', 'sent'],
      ['OUTBOX#notice:b', 'pending'],
      ['OUTBOX#notice:c', 'sent'],
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
