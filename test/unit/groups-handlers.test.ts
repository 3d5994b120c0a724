import './support/env';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { currentSlot } from '#domain/groups';
import { MAX_ATTEMPTS } from '#shared/retry';
import { MAX_TRANSACTION_ITEMS } from '#store/groups';
import { handler as createGroup } from '../../lambdas/groups/create-group';
import { handler as deleteGroup } from '../../lambdas/groups/delete-group';
import { handler as getGroup } from '../../lambdas/groups/get-group';
import { handler as updateGroup } from '../../lambdas/groups/update-group';
import {
  awsError,
  ddbMock,
  emailLookups,
  EMAIL_PROJECTION,
  expectError,
  FUTURE_DATE,
  group,
  GROUP_ID,
  groupPath,
  invoke,
  MERCHANT_NAME,
  METHOD_PROJECTION,
  methodLookups,
  MID,
  OTHER_MID,
  payorEmail,
  resetDb,
  savedMethod,
  sentCommands,
  SHORT_MID,
  storedGroup,
  transactionCanceled,
} from './support/api';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeEach(() => {
  resetDb();
});

const createBody = (over: Record<string, unknown> = {}) => ({
  servicePayId: MID,
  scheduleDate: FUTURE_DATE,
  scheduleHour: 9,
  locationId: 12,
  ...over,
});
const inline = (amount: number, over: Record<string, unknown> = {}) => ({
  profileId: 'payor1/method1',
  amount,
  ...over,
});
const post = (body: unknown, mid = MID) =>
  invoke(createGroup, { method: 'POST', pathParameters: { MID: mid }, body });

type AnyItem = Record<string, any>;

describe('POST /groups (create group)', () => {
  it('writes the group and its payments in one transaction and answers 201 with totals', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await post(
      createBody({
        payments: [inline(19.99, { orderId: 'INV-1' }), inline(0.1), inline(0.2), inline(999999.99)],
      }),
    );

    expect(response.status).toBe(201);
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand', 'TransactWriteCommand']);
    // Four payments of one saved method: looked up once.
    expect(methodLookups()).toEqual([
      {
        RequestItems: {
          t: {
            Keys: [{ pk: 'PAYOR#payor1', sk: 'METHOD#method1' }],
            ProjectionExpression: METHOD_PROJECTION,
          },
        },
      },
    ]);
    const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(5);

    const groupPut = items[0]!.Put!;
    expect(groupPut.TableName).toBe('t');
    expect(groupPut.ConditionExpression).toBe('attribute_not_exists(pk)');
    const groupId = response.body.paymentGroupId as string;
    expect(groupId).toMatch(UUID_V7);
    expect(groupPut.Item).toMatchObject({
      pk: `GROUP#${groupId}`,
      sk: 'GROUP',
      entity: 'group',
      merchantId: MID,
      status: 'pending',
      paymentCount: 4,
      totalCents: 1999 + 10 + 20 + 99999999,
      gsi1pk: `MERCHANT#${MID}`,
      gsi1sk: `${FUTURE_DATE}T09#${groupId}`,
      gsi2sk: `${FUTURE_DATE}T09#${groupId}`,
    });
    expect((groupPut.Item as AnyItem).gsi2pk).toMatch(/^DUE#[0-3]$/);

    const paymentItems = items.slice(1).map((i) => i.Put!.Item as AnyItem);
    expect(paymentItems.map((p) => p.amountCents)).toEqual([1999, 10, 20, 99999999]);
    for (const [index, p] of paymentItems.entries()) {
      expect(p).toMatchObject({
        pk: `GROUP#${groupId}`,
        sk: `PAYMENT#${p.paymentId}`,
        entity: 'payment',
        paymentGroupId: groupId,
        merchantId: MID,
        deleted: false,
        authResponse: null,
      });
      expect(items[index + 1]!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    }

    expect(response.body).toMatchObject({
      paymentGroupId: groupId,
      servicePayId: MID,
      scheduleDate: FUTURE_DATE,
      scheduleHour: 9,
      locationId: 12,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
      status: 'pending',
      deleted: false,
      paymentCount: 4,
      totalAmount: 1000020.28,
    });
    expect(response.body.dateCreated).toBe(response.body.lastUpdated);
    expect(response.body.payments).toHaveLength(4);
    expect(response.body.payments.map((p: AnyItem) => p.amount)).toEqual([19.99, 0.1, 0.2, 999999.99]);
    expect(response.body.payments.map((p: AnyItem) => p.paymentId)).toEqual(
      paymentItems.map((p) => p.paymentId),
    );
    expect(response.body.payments[0]).toMatchObject({
      paymentGroupId: groupId,
      orderId: 'INV-1',
      deleted: false,
      authResponse: null,
      recurring: false,
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: false,
    });
    // Payment ids are distinct UUIDv7 and sort in the order the payments were given.
    const ids = response.body.payments.map((p: AnyItem) => p.paymentId as string);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
  });

  it('creates a group without payments: zero totals, an empty payments array', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await post(createBody());
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ paymentCount: 0, totalAmount: 0, payments: [] });
    expect(ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toHaveLength(1);
    expect(sentCommands()).toEqual(['GetCommand', 'TransactWriteCommand']);
  });

  it('400 naming the first payment whose profileId is no saved method of this merchant, before any write', async () => {
    savedMethod('payor9/method9', OTHER_MID);
    const payments = [
      inline(1),
      inline(2, { profileId: 'payor2/method2' }),
      inline(3, { profileId: 'payor9/method9' }),
      inline(4, { profileId: 'payor8/method8' }),
    ];
    const response = await post(createBody({ payments }));
    expect(expectError(response, 400)).toBe(
      'payments[2].profileId payor9/method9 names no saved payment method of a payor of this merchant',
    );
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand']);
  });

  it('400 for an unknown saved method in a group of more than 99 payments, before any batch write', async () => {
    const payments = Array.from({ length: 150 }, (_, i) =>
      inline(1, i === 120 ? { profileId: 'payor1/nope' } : {}),
    );
    expect(expectError(await post(createBody({ payments })), 400)).toBe(
      'payments[120].profileId payor1/nope names no saved payment method of a payor of this merchant',
    );
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand']);
  });

  it('looks distinct saved methods up in batches of 100 keys, lower-cased and without repeats', async () => {
    ddbMock.on(BatchWriteCommand).resolves({});
    ddbMock.on(PutCommand).resolves({});
    for (let i = 0; i < 250; i++) savedMethod(`payor${i}/method${i}`);
    const payments = [
      ...Array.from({ length: 250 }, (_, i) => inline(1, { profileId: `payor${i}/method${i}` })),
      inline(1, { profileId: 'PAYOR7/METHOD7' }),
    ];
    expect((await post(createBody({ payments }))).status).toBe(201);
    const lookups = methodLookups().map((l) => l.RequestItems.t!.Keys);
    expect(lookups.map((keys) => keys.length)).toEqual([100, 100, 50]);
    expect(lookups.flat()).toEqual(
      Array.from({ length: 250 }, (_, i) => ({ pk: `PAYOR#payor${i}`, sk: `METHOD#method${i}` })),
    );
  });

  it('asks again for the keys DynamoDB left unprocessed', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const keysOf = (input: { RequestItems: Record<string, { Keys: unknown[] }> }) =>
      input.RequestItems.t!.Keys;
    ddbMock
      .on(BatchGetCommand)
      .callsFakeOnce((input) => ({
        Responses: { t: [{ payorId: 'payor1', savedPaymentMethodId: 'method1', merchantId: MID }] },
        UnprocessedKeys: { t: { ...input.RequestItems.t, Keys: keysOf(input).slice(1) } },
      }))
      .resolvesOnce({
        Responses: { t: [{ payorId: 'payor2', savedPaymentMethodId: 'method2', merchantId: MID }] },
      });
    const payments = [inline(1), inline(2, { profileId: 'payor2/method2' })];
    expect((await post(createBody({ payments }))).status).toBe(201);
    expect(methodLookups().map((l) => l.RequestItems.t!.Keys)).toEqual([
      [
        { pk: 'PAYOR#payor1', sk: 'METHOD#method1' },
        { pk: 'PAYOR#payor2', sk: 'METHOD#method2' },
      ],
      [{ pk: 'PAYOR#payor2', sk: 'METHOD#method2' }],
    ]);
  });

  it('accepts the 8-digit servicePayId and path MID, and stores the 11-digit merchant', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await post(createBody({ servicePayId: SHORT_MID }), SHORT_MID);
    expect(response.status).toBe(201);
    expect(response.body.servicePayId).toBe(MID);
    const item = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item;
    expect(item).toMatchObject({ merchantId: MID, gsi1pk: `MERCHANT#${MID}` });
  });

  it('400 when servicePayId names another merchant, before any write', async () => {
    const response = await post(createBody({ servicePayId: OTHER_MID }));
    expect(expectError(response, 400)).toBe(
      `servicePayId ${OTHER_MID} does not match the merchant in the path`,
    );
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it('400 for a slot in the past, before any write', async () => {
    const response = await post(createBody({ scheduleDate: '2020-01-01', scheduleHour: 0 }));
    expect(expectError(response, 400)).toContain('is in the past');
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  describe('with the clock at 2026-05-10T14:37Z', () => {
    beforeEach(() => {
      // Only Date is faked: the SDK mock and middy keep their real timers.
      jest.useFakeTimers({
        now: new Date('2026-05-10T14:37:00.000Z'),
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
      });
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('accepts the current UTC hour and stamps the creation time', async () => {
      ddbMock.on(TransactWriteCommand).resolves({});
      const response = await post(createBody({ scheduleDate: '2026-05-10', scheduleHour: 14 }));
      expect(response.status).toBe(201);
      expect(response.body.dateCreated).toBe('2026-05-10T14:37:00.000Z');
      expect(currentSlot(new Date())).toBe('2026-05-10T14');
    });

    it('refuses the previous hour', async () => {
      const response = await post(createBody({ scheduleDate: '2026-05-10', scheduleHour: 13 }));
      expect(expectError(response, 400)).toBe(
        'scheduleDate/scheduleHour 2026-05-10T13:00Z is in the past (now 2026-05-10T14:37:00.000Z)',
      );
      expect(sentCommands()).toEqual(['GetCommand']);
    });
  });

  it('400 with the field name for an invalid payment, before any write', async () => {
    const response = await post(createBody({ payments: [inline(1), inline(2), inline(3), inline(1.234)] }));
    expect(expectError(response, 400)).toBe('payments[3].amount must have at most 2 decimal places');
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it('400 for "deleted" in the create body', async () => {
    expect(expectError(await post(createBody({ deleted: false })), 400)).toBe('deleted is not a known field');
  });

  describe(`one transaction holds at most ${MAX_TRANSACTION_ITEMS} items: group + payments + notices`, () => {
    beforeEach(() => {
      ddbMock.on(TransactWriteCommand).resolves({});
      ddbMock.on(BatchWriteCommand).resolves({});
      ddbMock.on(PutCommand).resolves({});
      savedMethod('payor3/method3');
      payorEmail('payor1', 'one@example.com');
      payorEmail('payor3', 'three@example.com');
    });

    /** `count` payments of payor2 (no e-mail), the first `notices` of them flagged and of payors with e-mail. */
    const paymentsWith = (count: number, flagged: string[]) =>
      Array.from({ length: count }, (_, i) =>
        i < flagged.length
          ? inline(1, { profileId: flagged[i], sendPaymentScheduledNotification: true })
          : inline(1, { profileId: 'payor2/method2' }),
      );
    const outboxIn = (items: AnyItem[]) => items.filter((i) => i.entity === 'outbox');

    it('99 payments and no notice: one transaction of 100 items, no e-mail lookup', async () => {
      const response = await post(createBody({ payments: paymentsWith(99, []) }));
      expect(response.status).toBe(201);
      expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
      expect(ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toHaveLength(100);
      expect(ddbMock.commandCalls(BatchWriteCommand)).toHaveLength(0);
      expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
      expect(emailLookups()).toHaveLength(0);
    });

    it('97 payments with 2 notices: one transaction of exactly 100 items', async () => {
      const response = await post(
        createBody({ payments: paymentsWith(97, ['payor1/method1', 'payor3/method3']) }),
      );
      expect(response.status).toBe(201);
      const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
      expect(items).toHaveLength(100);
      expect(outboxIn(items.map((i) => i.Put!.Item as AnyItem))).toHaveLength(2);
      expect(ddbMock.commandCalls(BatchWriteCommand)).toHaveLength(0);
    });

    it('98 flagged-or-not payments with 1 e-mail among 2 flagged: 100 items, still one transaction', async () => {
      // payor2 has no e-mail: its flagged payment gets no notice and takes no transaction item.
      const response = await post(
        createBody({ payments: paymentsWith(98, ['payor1/method1', 'payor2/method2']) }),
      );
      expect(response.status).toBe(201);
      const items = ddbMock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
      expect(items).toHaveLength(100);
      expect(outboxIn(items.map((i) => i.Put!.Item as AnyItem)).map((o) => o.recipient)).toEqual([
        'one@example.com',
      ]);
      expect(ddbMock.commandCalls(BatchWriteCommand)).toHaveLength(0);
    });

    it('98 payments with 2 notices (101 items): payments and notices batch-written, then the group Put', async () => {
      const response = await post(
        createBody({ payments: paymentsWith(98, ['payor1/method1', 'payor3/method3']) }),
      );
      expect(response.status).toBe(201);
      expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
      const sent = sentCommands();
      expect(sent.filter((c) => c === 'BatchWriteCommand')).toHaveLength(4);
      // The group is written last, after every payment and notice.
      expect(sent[sent.length - 1]).toBe('PutCommand');
      expect(sent.filter((c) => c === 'PutCommand')).toHaveLength(1);

      const written = ddbMock
        .commandCalls(BatchWriteCommand)
        .flatMap((c) => c.args[0].input.RequestItems!.t!)
        .map((r) => r.PutRequest!.Item as AnyItem);
      expect(written).toHaveLength(100);
      expect(written.filter((i) => i.entity === 'payment')).toHaveLength(98);
      const notices = outboxIn(written);
      const [first, second] = response.body.payments as AnyItem[];
      expect(notices.map((n) => [n.pk, n.sk, n.recipient])).toEqual([
        [`OUTBOX#notice:${first!.paymentId}`, 'OUTBOX', 'one@example.com'],
        [`OUTBOX#notice:${second!.paymentId}`, 'OUTBOX', 'three@example.com'],
      ]);
      expect(notices[0]).toMatchObject({
        entity: 'outbox',
        kind: 'payment-scheduled',
        status: 'pending',
        attempts: 0,
        paymentGroupId: response.body.paymentGroupId,
      });
      const groupPut = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
      expect(groupPut.Item).toMatchObject({ entity: 'group', paymentCount: 98 });
      expect(groupPut.ConditionExpression).toBe('attribute_not_exists(pk)');
    });

    it('99 payments with 1 notice (101 items): the batch path', async () => {
      const response = await post(createBody({ payments: paymentsWith(99, ['payor1/method1']) }));
      expect(response.status).toBe(201);
      expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
      const written = ddbMock
        .commandCalls(BatchWriteCommand)
        .flatMap((c) => c.args[0].input.RequestItems!.t!)
        .map((r) => r.PutRequest!.Item as AnyItem);
      expect(written).toHaveLength(100);
      expect(outboxIn(written)).toHaveLength(1);
    });

    it('a failed group write removes the batch-written payments; the notices are never sent', async () => {
      ddbMock.on(PutCommand).rejects(awsError('ThrottlingException'));
      const response = await post(
        createBody({ payments: paymentsWith(98, ['payor1/method1', 'payor3/method3']) }),
      );
      expectError(response, 503);
      const requests = ddbMock
        .commandCalls(BatchWriteCommand)
        .flatMap((c) => c.args[0].input.RequestItems!.t!);
      const puts = requests
        .filter((r) => r.PutRequest)
        .map((r) => `${(r.PutRequest!.Item as AnyItem).pk}|${(r.PutRequest!.Item as AnyItem).sk}`);
      const deletes = requests
        .filter((r) => r.DeleteRequest)
        .map((r) => `${r.DeleteRequest!.Key!.pk}|${r.DeleteRequest!.Key!.sk}`);
      expect(puts).toHaveLength(100);
      const paymentKeys = puts.filter((k) => k.includes('|PAYMENT#'));
      expect(paymentKeys).toHaveLength(98);
      expect(deletes).toEqual(expect.arrayContaining(paymentKeys));
      for (const key of deletes) expect(puts).toContain(key);
      // Notices left behind name a group that never committed: the notifier marks them failed
      // without sending (see send-notifications.test.ts).
    });
  });

  describe('payment-scheduled notices', () => {
    beforeEach(() => {
      ddbMock.on(TransactWriteCommand).resolves({});
    });
    const putItems = () =>
      ddbMock
        .commandCalls(TransactWriteCommand)[0]!
        .args[0].input.TransactItems!.map((i) => i.Put!) as AnyItem[];

    it('a flagged payment whose payor has an e-mail gets an outbox item in the same transaction', async () => {
      payorEmail('payor1', 'payor@example.com');
      savedMethod('payor1/method1', MID, {
        maskedAccountNumber: '************4444',
        accountType: 'MASTERCARD',
      });
      const response = await post(
        createBody({
          scheduleHour: 7,
          payments: [
            inline(12.5, { orderId: 'INV-9', sendPaymentScheduledNotification: true }),
            inline(3, { profileId: 'payor2/method2' }),
          ],
        }),
      );
      expect(response.status).toBe(201);
      expect(sentCommands()).toEqual([
        'GetCommand',
        'BatchGetCommand',
        'BatchGetCommand',
        'TransactWriteCommand',
      ]);
      expect(methodLookups()[0]!.RequestItems.t!.ProjectionExpression).toBe(METHOD_PROJECTION);
      expect(emailLookups()).toEqual([
        {
          RequestItems: {
            t: { Keys: [{ pk: 'PAYOR#payor1', sk: 'PAYOR' }], ProjectionExpression: EMAIL_PROJECTION },
          },
        },
      ]);

      const puts = putItems();
      expect(puts).toHaveLength(4);
      const groupId = response.body.paymentGroupId as string;
      const paymentId = response.body.payments[0].paymentId as string;
      const outbox = puts[3]!;
      expect(outbox.TableName).toBe('t');
      expect(outbox.ConditionExpression).toBe('attribute_not_exists(pk)');
      expect(outbox.Item).toEqual({
        pk: `OUTBOX#notice:${paymentId}`,
        sk: 'OUTBOX',
        entity: 'outbox',
        outboxId: `notice:${paymentId}`,
        kind: 'payment-scheduled',
        recipient: 'payor@example.com',
        status: 'pending',
        attempts: 0,
        createdAt: response.body.dateCreated,
        paymentGroupId: groupId,
        data: {
          merchantName: MERCHANT_NAME,
          amountCents: 1250,
          maskedAccountNumber: '************4444',
          accountType: 'MASTERCARD',
          scheduleDate: FUTURE_DATE,
          scheduleHour: 7,
          paymentId,
          orderId: 'INV-9',
        },
      });
      // Only masked account data: nothing resembling a full card number.
      expect(JSON.stringify(outbox.Item)).not.toMatch(/\d{12,}/);
      expect(response.body.payments[0].sendPaymentScheduledNotification).toBe(true);
    });

    it('looks each payor up once and keeps one notice per flagged payment', async () => {
      payorEmail('payor1', 'payor@example.com');
      const response = await post(
        createBody({
          payments: [
            inline(1, { sendPaymentScheduledNotification: true }),
            inline(2, { sendPaymentScheduledNotification: true, profileId: 'PAYOR1/METHOD1' }),
          ],
        }),
      );
      expect(response.status).toBe(201);
      expect(emailLookups()[0]!.RequestItems.t!.Keys).toEqual([{ pk: 'PAYOR#payor1', sk: 'PAYOR' }]);
      const outbox = putItems().filter((p) => p.Item.entity === 'outbox');
      expect(outbox.map((o) => o.Item.outboxId)).toEqual(
        (response.body.payments as AnyItem[]).map((p) => `notice:${p.paymentId}`),
      );
      expect(outbox.map((o) => o.Item.data.amountCents)).toEqual([100, 200]);
    });

    it('a flagged payment whose payor has no e-mail gets no outbox item (the flag is kept)', async () => {
      payorEmail('payor1', undefined);
      const response = await post(
        createBody({ payments: [inline(1, { sendPaymentScheduledNotification: true })] }),
      );
      expect(response.status).toBe(201);
      expect(emailLookups()).toHaveLength(1);
      expect(putItems().map((p) => p.Item.entity)).toEqual(['group', 'payment']);
      expect(putItems()[1]!.Item.sendPaymentScheduledNotification).toBe(true);
    });

    it('an unflagged payment gets no outbox item and no e-mail lookup', async () => {
      payorEmail('payor1', 'payor@example.com');
      const response = await post(
        createBody({ payments: [inline(1), inline(2, { sendPaymentScheduledNotification: false })] }),
      );
      expect(response.status).toBe(201);
      expect(emailLookups()).toHaveLength(0);
      expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand', 'TransactWriteCommand']);
      expect(putItems().map((p) => p.Item.entity)).toEqual(['group', 'payment', 'payment']);
    });

    it('503 when the e-mail lookup is throttled, before any write', async () => {
      ddbMock
        .on(BatchGetCommand, {
          RequestItems: { t: { ProjectionExpression: EMAIL_PROJECTION } },
        } as unknown as BatchGetCommandInput)
        .rejects(awsError('ProvisionedThroughputExceededException'));
      const response = await post(
        createBody({ payments: [inline(1, { sendPaymentScheduledNotification: true })] }),
      );
      expectError(response, 503);
      expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    });
  });

  it('writes 150 payments with BatchWriteCommand (25 per batch) and then the group with PutCommand', async () => {
    ddbMock.on(BatchWriteCommand).resolves({});
    ddbMock.on(PutCommand).resolves({});
    const payments = Array.from({ length: 150 }, (_, i) => inline(i + 0.01));
    const response = await post(createBody({ payments }));

    expect(response.status).toBe(201);
    expect(sentCommands()).toEqual([
      'GetCommand',
      'BatchGetCommand',
      ...Array(6).fill('BatchWriteCommand'),
      'PutCommand',
    ]);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);

    const batches = ddbMock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!);
    expect(batches.map((b) => b.length)).toEqual([25, 25, 25, 25, 25, 25]);
    const written = batches.flat().map((r) => r.PutRequest!.Item as AnyItem);
    expect(new Set(written.map((p) => p.paymentId)).size).toBe(150);
    expect(
      written.every((p) => p.entity === 'payment' && p.paymentGroupId === response.body.paymentGroupId),
    ).toBe(true);

    const put = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    const expectedCents = Array.from({ length: 150 }, (_, i) => i * 100 + 1).reduce((a, b) => a + b, 0);
    expect(put.Item).toMatchObject({ entity: 'group', paymentCount: 150, totalCents: expectedCents });
    expect(response.body.totalAmount).toBe(expectedCents / 100);
    expect(response.body.paymentCount).toBe(150);
    expect(response.body.payments).toHaveLength(150);
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
    const response = await post(createBody({ payments: Array.from({ length: 100 }, () => inline(1)) }));
    expect(response.status).toBe(201);
    const sizes = ddbMock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!.length);
    expect(sizes.sort((a, b) => a - b)).toEqual([3, 25, 25, 25, 25]);
  });

  it('removes the batch-written payments when the group write fails, and answers with the error', async () => {
    ddbMock.on(BatchWriteCommand).resolves({});
    ddbMock.on(PutCommand).rejects(awsError('ThrottlingException'));
    const response = await post(createBody({ payments: Array.from({ length: 120 }, () => inline(1)) }));
    expectError(response, 503);
    const requests = ddbMock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!);
    const puts = requests.filter((r) => r.PutRequest).map((r) => (r.PutRequest!.Item as AnyItem).sk);
    const deletes = requests.filter((r) => r.DeleteRequest).map((r) => r.DeleteRequest!.Key!.sk);
    expect(puts).toHaveLength(120);
    expect(deletes.sort()).toEqual([...puts].sort());
  });

  it('maps a failed transaction to 500 and a throttled one to 503', async () => {
    ddbMock.on(TransactWriteCommand).rejects(new Error('boom'));
    expect((await post(createBody())).body).toEqual({ message: 'Internal server error', responseCode: 500 });
    ddbMock.on(TransactWriteCommand).rejects(awsError('ThrottlingException'));
    expectError(await post(createBody()), 503);
  });

  it('503 for a transaction cancelled with TransactionConflict, 500 for other cancellation reasons', async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'TransactionConflict'));
    expect(expectError(await post(createBody({ payments: [inline(1)] })), 503)).toBe(
      'Service temporarily unavailable; retry with backoff',
    );
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('ValidationError'));
    expectError(await post(createBody({ payments: [inline(1)] })), 500);
  });

  it('503 when the saved-method lookup is throttled, before any write', async () => {
    ddbMock.on(BatchGetCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    expectError(await post(createBody({ payments: [inline(1)] })), 503);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('GET /groups/{GroupID}', () => {
  it('200 with the group view', async () => {
    storedGroup(group({ status: 'processed', totalCents: 3050, paymentCount: 2 }));
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      paymentGroupId: GROUP_ID,
      servicePayId: MID,
      scheduleDate: FUTURE_DATE,
      scheduleHour: 9,
      locationId: 7,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
      status: 'processed',
      deleted: false,
      paymentCount: 2,
      totalAmount: 30.5,
      dateCreated: '2026-05-01T00:00:00.000Z',
      lastUpdated: '2026-05-01T00:00:00.000Z',
    });
  });

  it('404 when the item found is not a group', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } })
      .resolves({ Item: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP', entity: 'payment' } });
    expectError(await invoke(getGroup, { pathParameters: groupPath() }), 404);
  });
});

describe('PUT /groups/{GroupID} (update group)', () => {
  const put = (body: unknown) => invoke(updateGroup, { method: 'PUT', pathParameters: groupPath(), body });

  it('changes the settings with a conditional update and answers 200 with the stored group', async () => {
    storedGroup(group());
    ddbMock.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, unknown> }) => {
      const v = input.ExpressionAttributeValues;
      return {
        Attributes: {
          ...group({
            scheduleHour: v[':h'] as number,
            locationId: v[':l'] as number,
            lastUpdated: v[':lu'] as string,
          }),
          pk: 'x',
          sk: 'GROUP',
          entity: 'group',
        },
      };
    });
    const response = await put({ scheduleHour: 22, locationId: 3, paymentGroupId: GROUP_ID.toUpperCase() });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      paymentGroupId: GROUP_ID,
      scheduleHour: 22,
      locationId: 3,
      status: 'pending',
    });
    expect(response.body).not.toHaveProperty('pk');
    const update = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.Key).toEqual({ pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' });
    expect(update.ConditionExpression).toBe('#status = :pending');
    expect(update.ExpressionAttributeValues).toMatchObject({
      ':d': FUTURE_DATE,
      ':h': 22,
      ':l': 3,
      ':ti': 'Merchant',
      ':sc': false,
      ':ap': false,
      ':g1': `${FUTURE_DATE}T22#${GROUP_ID}`,
      ':g2': `${FUTURE_DATE}T22#${GROUP_ID}`,
    });
  });

  it.each(['processing', 'processed'] as const)(
    'ignores the update of a %s group: 200, unchanged',
    async (status) => {
      storedGroup(group({ status }));
      const response = await put({ scheduleHour: 22 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status, scheduleHour: 9 });
      expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
    },
  );

  it('re-reads when the group left pending between read and write, and then ignores the update', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } })
      .resolvesOnce({ Item: { ...group(), pk: `GROUP#${GROUP_ID}`, sk: 'GROUP', entity: 'group' } })
      .resolves({
        Item: { ...group({ status: 'processing' }), pk: `GROUP#${GROUP_ID}`, sk: 'GROUP', entity: 'group' },
      });
    ddbMock.on(UpdateCommand).rejects(awsError('ConditionalCheckFailedException'));
    const response = await put({ scheduleHour: 22 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'processing', scheduleHour: 9 });
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('400 for a deleted group', async () => {
    storedGroup(group({ status: 'deleted' }));
    expect(expectError(await put({ scheduleHour: 22 }), 400)).toBe(`payment group ${GROUP_ID} is deleted`);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('400 for a reschedule into the past', async () => {
    storedGroup(group());
    expect(expectError(await put({ scheduleDate: '2020-01-01' }), 400)).toContain('is in the past');
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('400 when the body paymentGroupId differs from the path, before reading the group', async () => {
    const other = '01890a5d-ac96-774b-bcce-b302099a8059';
    expect(expectError(await put({ paymentGroupId: other }), 400)).toBe(
      `paymentGroupId ${other} does not match the path (${GROUP_ID})`,
    );
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it('400 when servicePayId names another merchant', async () => {
    expectError(await put({ servicePayId: OTHER_MID }), 400);
  });

  it('400 for an unknown field', async () => {
    expect(expectError(await put({ status: 'processed' }), 400)).toBe('status is not a known field');
  });

  it("404 for a missing group or another merchant's group", async () => {
    expectError(await put({ scheduleHour: 22 }), 404);
    storedGroup(group({ merchantId: OTHER_MID }));
    expectError(await put({ scheduleHour: 22 }), 404);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it(`503 after ${MAX_ATTEMPTS} attempts when the group keeps changing under it`, async () => {
    storedGroup(group());
    ddbMock.on(UpdateCommand).rejects(awsError('ConditionalCheckFailedException'));
    expect(expectError(await put({ locationId: 3 }), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(MAX_ATTEMPTS);
  });
});

describe('DELETE /groups/{GroupID}', () => {
  const del = () => invoke(deleteGroup, { method: 'DELETE', pathParameters: groupPath() });

  it('soft-deletes a pending group: conditional update, 204 with no body', async () => {
    storedGroup(group());
    ddbMock.on(UpdateCommand).resolves({});
    const response = await del();
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    const update = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.Key).toEqual({ pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' });
    expect(update.ConditionExpression).toBe('#status = :pending');
    expect(update.UpdateExpression).toContain('REMOVE gsi2pk, gsi2sk');
    expect(update.ExpressionAttributeValues).toMatchObject({ ':deleted': 'deleted', ':pending': 'pending' });
  });

  it('is a no-op 204 for a group already deleted', async () => {
    storedGroup(group({ status: 'deleted' }));
    expect((await del()).status).toBe(204);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it.each([
    ['processing', 'is being processed'],
    ['processed', 'has already been processed; use void-or-refund instead'],
  ] as const)('400 for a %s group', async (status, why) => {
    storedGroup(group({ status }));
    expect(expectError(await del(), 400)).toBe(`payment group ${GROUP_ID} ${why}`);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('404 for a missing group', async () => {
    expectError(await del(), 404);
  });

  it('re-reads when the group changed under it', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } })
      .resolvesOnce({ Item: { ...group(), entity: 'group' } })
      .resolves({ Item: { ...group({ status: 'processed' }), entity: 'group' } });
    ddbMock.on(UpdateCommand).rejects(awsError('ConditionalCheckFailedException'));
    expect(expectError(await del(), 400)).toContain('has already been processed');
  });
  it(`503 after ${MAX_ATTEMPTS} attempts when the group keeps changing under it`, async () => {
    storedGroup(group());
    ddbMock.on(UpdateCommand).rejects(awsError('ConditionalCheckFailedException'));
    expect(expectError(await del(), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(MAX_ATTEMPTS);
  });
});
