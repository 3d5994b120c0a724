/**
 * DynamoGroupStore.createGroup against the DynamoDB document-client mock: the commands of the
 * one-transaction and batch paths, and the failures DynamoDB Local cannot produce (unprocessed
 * batch items, a failed group write). Conditions and results on a real table:
 * test/integration/group-store.test.ts.
 */
import '#support/handlers/env';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { newEvent, type ServiceEvent } from '#domain/events';
import { newPayment, type Payment } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { DynamoGroupStore, MAX_TRANSACTION_ITEMS } from '#store/groups';
import { DynamoPaymentStore } from '#store/payments';
import {
  awsError,
  ddbMock,
  group,
  GROUP_ID,
  MID,
  payment,
  PAYMENT_ID,
  resetDb,
  sentCommands,
} from '#support/handlers/invoke';
import { sleep } from '#shared/clock';

type AnyItem = Record<string, any>;

const store = new DynamoGroupStore(ddb(), 't');
const NOW = new Date('2026-05-01T00:00:00.000Z');

beforeEach(() => {
  resetDb();
});

const paymentsOf = (count: number): Payment[] =>
  Array.from({ length: count }, (_, i) =>
    newPayment({ profileId: 'payor1/method1', amount: i + 1 }, group(), newId(), NOW),
  );
const notice = (p: Payment): OutboxItem => ({
  outboxId: `notice:${p.paymentId}`,
  kind: 'payment-scheduled',
  recipient: 'payor@example.com',
  status: 'pending',
  attempts: 0,
  createdAt: NOW.toISOString(),
  paymentGroupId: p.paymentGroupId,
  data: {
    merchantName: 'M',
    amountCents: p.amountCents,
    maskedAccountNumber: '************1111',
    accountType: 'VISA',
    scheduleDate: '2099-06-01',
    scheduleHour: 9,
    paymentId: p.paymentId,
  },
});
/** The group.created event a create writes (one per test: a fixed id). */
const created = (): ServiceEvent =>
  newEvent(
    { type: 'group.created', merchantId: MID, objectId: GROUP_ID, sequence: 1, data: {} },
    NOW,
    'evt_01890a5dac96774bbccebb302099a805',
  );
const batchRequests = () =>
  ddbMock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!);
const batchPuts = () => batchRequests().flatMap((r) => (r.PutRequest ? [r.PutRequest.Item as AnyItem] : []));

describe(`one transaction holds at most ${MAX_TRANSACTION_ITEMS} items: method checks + group + event + payments with their uses + notices`, () => {
  beforeEach(() => {
    ddbMock.on(TransactWriteCommand).resolves({});
    ddbMock.on(BatchWriteCommand).resolves({});
    ddbMock.on(PutCommand).resolves({});
  });

  it('writes the group, its payments and their method uses in one transaction, the method checked once', async () => {
    const payments = paymentsOf(4);
    await store.createGroup(group({ paymentCount: 4 }), payments);
    expect(sentCommands()).toEqual(['TransactWriteCommand']);
    const all = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    // The fence: the one method the payments name exists and is not being deleted.
    expect(all[0]).toEqual({
      ConditionCheck: {
        TableName: 't',
        Key: { pk: 'PAYOR#payor1', sk: 'METHOD#method1' },
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletion)',
      },
    });
    const items = all.slice(1);
    expect(items).toHaveLength(1 + 2 * 4);
    const g = group({ paymentCount: 4 });
    expect(items[0]!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(items[0]!.Put!.Item).toMatchObject({
      pk: `GROUP#${g.paymentGroupId}`,
      sk: 'GROUP',
      entity: 'group',
      gsi1pk: `MERCHANT#${g.merchantId}`,
      gsi1sk: `2099-06-01T09#${g.paymentGroupId}`,
      gsi2sk: `2099-06-01T09#${g.paymentGroupId}`,
    });
    expect((items[0]!.Put!.Item as AnyItem).gsi2pk).toMatch(/^DUE#[0-3]$/);
    expect(items.slice(1).map((i) => i.Put!.Item)).toEqual(
      payments.flatMap((p) => [
        { pk: `GROUP#${p.paymentGroupId}`, sk: `PAYMENT#${p.paymentId}`, entity: 'payment', ...p },
        {
          pk: 'METHODUSE#method1',
          sk: `PAYMENT#${p.paymentGroupId}#${p.paymentId}`,
          entity: 'method-use',
          merchantId: MID,
          payorId: 'payor1',
          savedPaymentMethodId: 'method1',
          paymentGroupId: p.paymentGroupId,
          paymentId: p.paymentId,
        },
      ]),
    );
    // Each payment conditioned on a new key.
    for (const item of items.filter((i) => (i.Put!.Item as AnyItem).entity === 'payment')) {
      expect(item.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
  });

  it('checks each method the payments name once', async () => {
    const payments = paymentsOf(4).map((p, i) => ({ ...p, profileId: `payor1/method${i % 2}` }));
    await store.createGroup(group({ paymentCount: 4 }), payments);
    const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items.filter((i) => i.ConditionCheck).map((i) => i.ConditionCheck!.Key)).toEqual([
      { pk: 'PAYOR#payor1', sk: 'METHOD#method0' },
      { pk: 'PAYOR#payor1', sk: 'METHOD#method1' },
    ]);
  });

  it('48 payments, no notice and the event: one transaction of 99 items', async () => {
    await store.createGroup(group(), paymentsOf(48), [], created());
    expect(sentCommands()).toEqual(['TransactWriteCommand']);
    const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(1 + 1 + 2 * 48 + 1);
    // The event is written in the same transaction, once.
    expect(items.at(-1)!.Put).toMatchObject({
      Item: { pk: `EVENT#${created().id}`, sk: 'EVENT', entity: 'event', type: 'group.created' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('48 payments with a notice and the event: one transaction of exactly 100 items', async () => {
    const payments = paymentsOf(48);
    await store.createGroup(group(), payments, payments.slice(0, 1).map(notice), created());
    const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(100);
    const outbox = items
      .flatMap((i) => (i.Put ? [i.Put.Item as AnyItem] : []))
      .filter((i) => i.entity === 'outbox');
    expect(outbox.map((o) => [o.pk, o.sk])).toEqual(
      payments.slice(0, 1).map((p) => [`OUTBOX#notice:${p.paymentId}`, 'OUTBOX']),
    );
    expect(ddbMock.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('48 payments with 2 notices and the event (101 items): the group written ahead as creating, then payments, uses and notices, the methods read again, then the commit with the event', async () => {
    const payments = paymentsOf(48);
    const g = group({ paymentCount: 48 });
    await store.createGroup(g, payments, payments.slice(0, 2).map(notice), created());
    const sent = sentCommands();
    expect(sent).toEqual([
      'PutCommand',
      ...Array<string>(4).fill('BatchWriteCommand'),
      // The fence of a large create: its methods read again (consistent) after the uses are written.
      'BatchGetCommand',
      'TransactWriteCommand',
    ]);
    const written = batchPuts();
    expect(written).toHaveLength(98);
    expect(written.filter((i) => i.entity === 'payment')).toHaveLength(48);
    expect(written.filter((i) => i.entity === 'method-use')).toHaveLength(48);
    expect(written.filter((i) => i.entity === 'outbox')).toMatchObject([
      {
        pk: `OUTBOX#notice:${payments[0]!.paymentId}`,
        sk: 'OUTBOX',
        kind: 'payment-scheduled',
        status: 'pending',
      },
      { pk: `OUTBOX#notice:${payments[1]!.paymentId}`, sk: 'OUTBOX' },
    ]);
    // Written ahead: invisible (status creating, in no list or due index), found by the sweep.
    const ahead = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(ahead.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(ahead.Item).toMatchObject({
      entity: 'group',
      paymentCount: 48,
      status: 'creating',
      gsi2pk: 'CREATING',
      gsi2sk: `${g.dateCreated}#${g.paymentGroupId}`,
    });
    expect(ahead.Item).not.toHaveProperty('gsi1pk');
    // The commit: one conditional write to pending with the list and due keys, and the event.
    const [commit, event] = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    // Only the attempt that wrote the group ahead commits it (its token).
    expect(commit!.Update!.ConditionExpression).toBe('#status = :creating AND createAttempt = :attempt');
    expect(commit!.Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'pending',
      ':gsi1pk': `MERCHANT#${g.merchantId}`,
      ':gsi2sk': `2099-06-01T09#${g.paymentGroupId}`,
      ':seq': 1,
    });
    expect(event!.Put!.Item).toMatchObject({ entity: 'event', type: 'group.created', sequence: 1 });
  });

  it('writes 150 payments with their uses 25 items per batch between the write-ahead and the commit', async () => {
    const payments = paymentsOf(150);
    await store.createGroup(group({ paymentCount: 150 }), payments, [], created());
    expect(sentCommands()).toEqual([
      'PutCommand',
      ...Array<string>(12).fill('BatchWriteCommand'),
      'BatchGetCommand',
      'TransactWriteCommand',
    ]);
    const sizes = ddbMock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!.length);
    expect(sizes).toEqual(Array<number>(12).fill(25));
    expect(new Set(batchPuts().map((p) => p.paymentId)).size).toBe(150);
  });
});

it('retries unprocessed batch items', async () => {
  let first = true;
  ddbMock.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, unknown[]> }) => {
    if (first) {
      first = false;
      return { UnprocessedItems: { t: input.RequestItems.t!.slice(0, 3) } };
    }
    return {};
  });
  ddbMock.on(PutCommand).resolves({});
  ddbMock.on(TransactWriteCommand).resolves({});
  await store.createGroup(group(), paymentsOf(100));
  const sizes = ddbMock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!.length);
  // 100 payments and their 100 uses: 8 batches, and the 3 items left unprocessed once.
  expect(sizes.sort((a, b) => a - b)).toEqual([3, ...Array<number>(8).fill(25)]);
});

describe('a failed large create leaves nothing', () => {
  const key = (k: AnyItem) => `${k.pk}|${k.sk}`;
  const deletes = () =>
    batchRequests().flatMap((r) => (r.DeleteRequest ? [key(r.DeleteRequest.Key as AnyItem)] : []));
  beforeEach(() => {
    ddbMock.on(PutCommand).resolves({});
    ddbMock.on(DeleteCommand).resolves({});
  });

  it('a failed commit: payments, uses and notices deleted, then the creating group; the commit error thrown', async () => {
    ddbMock.on(BatchWriteCommand).resolves({});
    ddbMock.on(TransactWriteCommand).rejects(awsError('ThrottlingException'));
    const payments = paymentsOf(120);
    await expect(
      store.createGroup(group(), payments, payments.slice(0, 2).map(notice)),
    ).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    const puts = batchPuts().map(key);
    expect(puts).toHaveLength(2 * 120 + 2);
    // Notices left behind would name a group that never committed: they go too.
    expect(deletes().sort()).toEqual([...puts].sort());
    expect(sentCommands().at(-1)).toBe('DeleteCommand');
    const groupDelete = ddbMock.commandCalls(DeleteCommand)[0]!.args[0].input;
    expect(groupDelete.Key).toEqual({ pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' });
    expect(groupDelete.ConditionExpression).toBe('#status = :creating AND createAttempt = :attempt');
  });

  it('a batch failing in the middle: no worker takes another batch, and everything is deleted', async () => {
    let puts = 0;
    ddbMock.on(BatchWriteCommand).callsFake(async (input: { RequestItems: Record<string, AnyItem[]> }) => {
      const requests = input.RequestItems.t!;
      if (requests[0]!.DeleteRequest) return {};
      puts++;
      await sleep(5);
      if (puts === 10) throw new Error('marshalling failed');
      return {};
    });
    const payments = paymentsOf(1000); // 80 batches (each payment with its use)
    await expect(store.createGroup(group(), payments)).rejects.toThrow('marshalling failed');
    // 10 batches were started; the 7 others in flight finish, and no worker starts another.
    expect(puts).toBeLessThanOrEqual(10 + 7);
    expect(deletes()).toHaveLength(2000);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sentCommands().at(-1)).toBe('DeleteCommand');
  });

  it('a cleanup that fails too leaves the creating group to the sweep and throws the first error', async () => {
    ddbMock.on(BatchWriteCommand).callsFake((input: { RequestItems: Record<string, AnyItem[]> }) => {
      throw new Error(input.RequestItems.t![0]!.DeleteRequest ? 'cleanup failed' : 'write failed');
    });
    await expect(store.createGroup(group(), paymentsOf(120))).rejects.toThrow('write failed');
    expect(ddbMock.commandCalls(DeleteCommand)).toHaveLength(0);
  });
});

describe('reads', () => {
  const payments = new DynamoPaymentStore(ddb(), 't');

  it('an item under a group key that is not a group is no group; under a payment key, no payment', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } })
      .resolves({ Item: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP', entity: 'payment' } });
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}` } })
      .resolves({ Item: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}`, entity: 'group' } });
    expect(await store.getGroup(GROUP_ID)).toBeUndefined();
    expect(await payments.getPayment(GROUP_ID, PAYMENT_ID)).toBeUndefined();
  });

  it('lists every payment of a group, following LastEvaluatedKey, without key attributes', async () => {
    const second = '01890a5d-ac96-774b-bcce-b302099a8060';
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({
        Items: [{ ...payment(), pk: 'x', sk: 'y', entity: 'payment' }],
        LastEvaluatedKey: { pk: 'x' },
      })
      .resolvesOnce({ Items: [{ ...payment({ paymentId: second, deleted: true }), entity: 'payment' }] });
    expect(await payments.listPayments(GROUP_ID)).toEqual([
      payment(),
      payment({ paymentId: second, deleted: true }),
    ]);
    const queries = ddbMock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': `GROUP#${GROUP_ID}`, ':p': 'PAYMENT#' },
    });
    expect(queries[1]!.ExclusiveStartKey).toEqual({ pk: 'x' });
  });
});
