/**
 * The stream forwarder (docs/decisions.md, "E-mail pacing"): one queue message per new outbox
 * item, nothing for other records; a record whose message was not enqueued is reported, so the
 * stream delivers it again.
 */
import '#support/handlers/env';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { handler } from '#lambdas/notifications/enqueue-outbox';
import { useOutboxQueue, type QueuedMessage } from '#shared/outbox-queue';
import { lambdaContext } from '#support/handlers/invoke';

type Handler = (event: DynamoDBStreamEvent, context: typeof lambdaContext) => Promise<DynamoDBBatchResponse>;
const forward = (records: DynamoDBRecord[]) =>
  (handler as unknown as Handler)({ Records: records }, lambdaContext);

function record(
  over: {
    eventName?: DynamoDBRecord['eventName'];
    entity?: string;
    outboxId?: string | null;
    seq?: string;
  } = {},
): DynamoDBRecord {
  const outboxId = over.outboxId === undefined ? 'notice:p-1' : over.outboxId;
  return {
    eventName: over.eventName ?? 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      NewImage: {
        entity: { S: over.entity ?? 'outbox' },
        ...(outboxId !== null && { outboxId: { S: outboxId } }),
        status: { S: 'pending' },
      },
      SequenceNumber: over.seq ?? '100',
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

const queued: QueuedMessage[] = [];
let refuse = new Set<string>();
beforeEach(() => {
  queued.length = 0;
  refuse = new Set();
  useOutboxQueue({
    async send(messages) {
      queued.push(...messages.filter((m) => !refuse.has(m.message.outboxId)));
      return messages.flatMap((m, i) => (refuse.has(m.message.outboxId) ? [i] : []));
    },
  });
});
afterAll(() => useOutboxQueue(undefined));

it('enqueues one message per new outbox item, at once, with no retries spent', async () => {
  const result = await forward([
    record({ outboxId: 'notice:a', seq: '1' }),
    record({ outboxId: 'receipt:b', seq: '2' }),
  ]);
  expect(result).toEqual({ batchItemFailures: [] });
  expect(queued).toEqual([
    { message: { outboxId: 'notice:a', notReady: 0 }, delaySeconds: 0 },
    { message: { outboxId: 'receipt:b', notReady: 0 }, delaySeconds: 0 },
  ]);
});

it('ignores records that are not new outbox items', async () => {
  const result = await forward([
    record({ eventName: 'MODIFY' }),
    record({ eventName: 'REMOVE' }),
    record({ entity: 'payment' }),
    record({ outboxId: null }),
    { eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } },
  ]);
  expect(result).toEqual({ batchItemFailures: [] });
  expect(queued).toEqual([]);
});

it('reports the records whose messages were not enqueued', async () => {
  refuse = new Set(['notice:b']);
  const result = await forward([
    record({ outboxId: 'notice:a', seq: '1' }),
    record({ outboxId: 'notice:b', seq: '2' }),
    record({ outboxId: 'notice:c', seq: '3' }),
  ]);
  expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
  expect(queued.map((q) => q.message.outboxId)).toEqual(['notice:a', 'notice:c']);
});

describe('new events (webhooks)', () => {
  const sent: unknown[] = [];
  let refuseEvents = false;
  beforeEach(async () => {
    sent.length = 0;
    refuseEvents = false;
    (await import('#shared/webhook-queue')).useWebhookQueue({
      async send(messages) {
        if (refuseEvents) return messages.map((_m, i) => i);
        sent.push(...messages);
        return [];
      },
    });
  });
  afterAll(async () => (await import('#shared/webhook-queue')).useWebhookQueue(undefined));

  const eventRecord = (seq: string, sequence = '3'): DynamoDBRecord => ({
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      NewImage: {
        entity: { S: 'event' },
        id: { S: 'evt_0193c2a45b1e7c3d8e4f5a6b7c8d9e06' },
        type: { S: 'payor.updated' },
        createdAt: { S: '2030-05-20T15:04:05.000Z' },
        merchantId: { S: '32350000001' },
        objectId: { S: 'p-1' },
        sequence: { N: sequence },
        data: { M: {} },
      },
      SequenceNumber: seq,
      StreamViewType: 'NEW_IMAGE',
    },
  });

  it('puts one message per new event on the webhook queue, keys only', async () => {
    const result = await forward([eventRecord('7'), record({ outboxId: 'notice:x', seq: '8' })]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([
      {
        message: {
          kind: 'event',
          eventId: 'evt_0193c2a45b1e7c3d8e4f5a6b7c8d9e06',
          merchantId: '32350000001',
          objectId: 'p-1',
          sequence: 3,
          type: 'payor.updated',
          createdAt: '2030-05-20T15:04:05.000Z',
        },
        delaySeconds: 0,
      },
    ]);
    expect(queued.map((q) => q.message.outboxId)).toEqual(['notice:x']);
  });

  it('reports an event it could not enqueue, so that the stream delivers it again', async () => {
    refuseEvents = true;
    expect(await forward([eventRecord('9')])).toEqual({ batchItemFailures: [{ itemIdentifier: '9' }] });
  });

  it('ignores a modified event and one without a sequence', async () => {
    await forward([{ ...eventRecord('10'), eventName: 'MODIFY' }, eventRecord('11', 'x')]);
    expect(sent).toEqual([]);
  });
});
