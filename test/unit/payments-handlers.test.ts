import './support/env';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ATTEMPTS } from '#shared/retry';
import { handler as addPayment } from '../../lambdas/payments/add-payment';
import { handler as deletePayment } from '../../lambdas/payments/delete-payment';
import { handler as getPayment } from '../../lambdas/payments/get-payment';
import { handler as listPayments } from '../../lambdas/payments/list-payments';
import { handler as updatePayment } from '../../lambdas/payments/update-payment';
import {
  awsError,
  ddbMock,
  emailLookups,
  EMAIL_PROJECTION,
  expectError,
  group,
  GROUP_ID,
  groupPath,
  invoke,
  MERCHANT_NAME,
  METHOD_PROJECTION,
  methodLookups,
  MID,
  noSavedMethods,
  OTHER_MID,
  payment,
  PAYMENT_ID,
  paymentPath,
  payorEmail,
  resetDb,
  savedMethod,
  sentCommands,
  storedGroup,
  storedPayment,
  transactionCanceled,
} from './support/api';

type AnyItem = Record<string, any>;

const OTHER_ID = '01890a5d-ac96-774b-bcce-b302099a8059';

beforeEach(() => {
  resetDb();
});

const transactItems = (index = 0) =>
  ddbMock.commandCalls(TransactWriteCommand)[index]!.args[0].input.TransactItems! as AnyItem[];

describe('POST .../payments (add payment)', () => {
  const add = (body: unknown) => invoke(addPayment, { method: 'POST', pathParameters: groupPath(), body });
  const body = (over: Record<string, unknown> = {}) => ({
    paymentGroupId: GROUP_ID,
    profileId: 'payor1/method1',
    amount: 19.99,
    ...over,
  });

  it('adds the payment and moves the group totals in one transaction; 201 with the payment', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await add(body({ orderId: 'INV-7', sendEmailReceipt: true }));

    expect(response.status).toBe(201);
    // No notice asked for: the group is not read, no payor e-mail is looked up.
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand', 'TransactWriteCommand']);
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
    expect(transactItems()).toHaveLength(2);
    const [put, totals] = transactItems();
    const paymentId = response.body.paymentId as string;
    expect(put!.Put).toMatchObject({
      TableName: 't',
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: {
        pk: `GROUP#${GROUP_ID}`,
        sk: `PAYMENT#${paymentId}`,
        entity: 'payment',
        merchantId: MID,
        amountCents: 1999,
        deleted: false,
        sendEmailReceipt: true,
        sendPaymentScheduledNotification: false,
      },
    });
    expect(totals!.Update).toMatchObject({
      TableName: 't',
      Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' },
      UpdateExpression: 'ADD paymentCount :c, totalCents :t SET lastUpdated = :now',
      ConditionExpression: '#status = :pending AND merchantId = :m AND paymentCount < :max',
      ExpressionAttributeValues: { ':c': 1, ':t': 1999, ':pending': 'pending', ':m': MID, ':max': 100_000 },
    });
    expect(response.body).toMatchObject({
      paymentGroupId: GROUP_ID,
      profileId: 'payor1/method1',
      amount: 19.99,
      orderId: 'INV-7',
      recurring: false,
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: false,
      deleted: false,
      authResponse: null,
    });
    expect(response.body.dateCreated).toBe(response.body.lastUpdated);
    expect(response.body).not.toHaveProperty('merchantId');
  });

  describe('with sendPaymentScheduledNotification', () => {
    const groupKey = { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' };
    const groupReads = () =>
      ddbMock
        .commandCalls(GetCommand)
        .map((c) => c.args[0].input)
        .filter((input) => JSON.stringify(input.Key) === JSON.stringify(groupKey));

    it('reads the group for its slot and writes the notice in the same transaction', async () => {
      ddbMock.on(TransactWriteCommand).resolves({});
      storedGroup(group({ scheduleDate: '2099-12-24', scheduleHour: 23 }));
      payorEmail('payor1', 'payor@example.com');
      savedMethod('payor1/method1', MID, { maskedAccountNumber: '*****6789', accountType: 'CHECKING' });
      const response = await add(body({ orderId: 'INV-7', sendPaymentScheduledNotification: true }));

      expect(response.status).toBe(201);
      expect(sentCommands()).toEqual([
        'GetCommand',
        'BatchGetCommand',
        'GetCommand',
        'BatchGetCommand',
        'TransactWriteCommand',
      ]);
      expect(groupReads()).toHaveLength(1);
      expect(emailLookups()).toEqual([
        {
          RequestItems: {
            t: { Keys: [{ pk: 'PAYOR#payor1', sk: 'PAYOR' }], ProjectionExpression: EMAIL_PROJECTION },
          },
        },
      ]);
      const items = transactItems();
      expect(items).toHaveLength(3);
      expect(items[0]!.Put.Item).toMatchObject({ entity: 'payment', sendPaymentScheduledNotification: true });
      expect(items[1]!.Update.Key).toEqual(groupKey);
      const paymentId = response.body.paymentId as string;
      expect(items[2]!.Put).toEqual({
        TableName: 't',
        ConditionExpression: 'attribute_not_exists(pk)',
        Item: {
          pk: `OUTBOX#notice:${paymentId}`,
          sk: 'OUTBOX',
          entity: 'outbox',
          outboxId: `notice:${paymentId}`,
          kind: 'payment-scheduled',
          recipient: 'payor@example.com',
          status: 'pending',
          attempts: 0,
          createdAt: response.body.dateCreated,
          paymentGroupId: GROUP_ID,
          data: {
            merchantName: MERCHANT_NAME,
            amountCents: 1999,
            maskedAccountNumber: '*****6789',
            accountType: 'CHECKING',
            scheduleDate: '2099-12-24',
            scheduleHour: 23,
            paymentId,
            orderId: 'INV-7',
          },
        },
      });
      expect(response.body.sendPaymentScheduledNotification).toBe(true);
    });

    it('writes no outbox item when the payor has no e-mail address', async () => {
      ddbMock.on(TransactWriteCommand).resolves({});
      storedGroup(group());
      payorEmail('payor1', undefined);
      const response = await add(body({ sendPaymentScheduledNotification: true }));
      expect(response.status).toBe(201);
      expect(emailLookups()).toHaveLength(1);
      expect(transactItems()).toHaveLength(2);
      expect(transactItems()[0]!.Put.Item.sendPaymentScheduledNotification).toBe(true);
    });

    it('writes no outbox item for an unflagged payment, even when the payor has an e-mail', async () => {
      ddbMock.on(TransactWriteCommand).resolves({});
      storedGroup(group());
      payorEmail('payor1', 'payor@example.com');
      const response = await add(body({ sendPaymentScheduledNotification: false }));
      expect(response.status).toBe(201);
      expect(groupReads()).toHaveLength(0);
      expect(emailLookups()).toHaveLength(0);
      expect(transactItems()).toHaveLength(2);
    });

    it("404 before any write when the group is missing or another merchant's", async () => {
      payorEmail('payor1', 'payor@example.com');
      expect(expectError(await add(body({ sendPaymentScheduledNotification: true })), 404)).toBe(
        `payment group ${GROUP_ID} not found`,
      );
      storedGroup(group({ merchantId: OTHER_MID }));
      expectError(await add(body({ sendPaymentScheduledNotification: true })), 404);
      expect(emailLookups()).toHaveLength(0);
      expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    });

    it('400 when the group is processed: the transaction with the notice is refused as a whole', async () => {
      ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed', 'None'));
      storedGroup(group({ status: 'processed' }));
      payorEmail('payor1', 'payor@example.com');
      const response = await add(body({ sendPaymentScheduledNotification: true }));
      expect(expectError(response, 400)).toContain('has already been processed');
      expect(transactItems()).toHaveLength(3);
    });
  });

  it('accepts an upper-case paymentGroupId in the body for the same group', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    expect((await add(body({ paymentGroupId: GROUP_ID.toUpperCase() }))).status).toBe(201);
  });

  it('400 when paymentGroupId differs from the path, before any write', async () => {
    expect(expectError(await add(body({ paymentGroupId: OTHER_ID })), 400)).toBe(
      `paymentGroupId ${OTHER_ID} does not match the path (${GROUP_ID})`,
    );
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it.each([
    [{ amount: 0 }, 'amount must be >= 0.01'],
    [{ amount: -1 }, 'amount must be >= 0.01'],
    [{ amount: 1e-9 }, 'amount must be >= 0.01'],
    [{ amount: 1000000 }, 'amount must be <= 999999.99'],
    [{ amount: 1.005 }, 'amount must have at most 2 decimal places'],
    [{ amount: 19.990000001 }, 'amount must have at most 2 decimal places'],
    [{ profileId: 'nope' }, 'profileId must be of the form {payorId}/{savedPaymentMethodId}'],
    [{ deleted: false }, 'deleted is not a known field'],
  ])('400 for %p', async (over, message) => {
    expect(expectError(await add(body(over)), 400)).toBe(message);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it.each([113298.68, 999999.99, 0.01])(
    'accepts the amount %p and stores it as exact cents',
    async (amount) => {
      ddbMock.on(TransactWriteCommand).resolves({});
      const response = await add(body({ amount }));
      expect(response.status).toBe(201);
      expect(response.body.amount).toBe(amount);
      expect(transactItems()[0]!.Put.Item.amountCents).toBe(Math.round(amount * 100));
    },
  );

  it('400 when profileId names no saved method, before any write', async () => {
    noSavedMethods();
    const response = await add(body({ profileId: 'payor9/method9' }));
    expect(expectError(response, 400)).toBe(
      'profileId payor9/method9 names no saved payment method of a payor of this merchant',
    );
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand']);
  });

  it("400 when profileId names another merchant's saved method, before any write", async () => {
    savedMethod('payor9/method9', OTHER_MID);
    const response = await add(body({ profileId: 'payor9/method9' }));
    expect(expectError(response, 400)).toBe(
      'profileId payor9/method9 names no saved payment method of a payor of this merchant',
    );
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('looks the method up by lower-cased payor and method ids', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    expect((await add(body({ profileId: 'PAYOR1/Method1' }))).status).toBe(201);
    expect(methodLookups()[0]!.RequestItems.t!.Keys).toEqual([{ pk: 'PAYOR#payor1', sk: 'METHOD#method1' }]);
  });

  it('400 when the group is processed: the cancelled transaction is explained by reading the group', async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    storedGroup(group({ status: 'processed' }));
    const response = await add(body());
    expect(expectError(response, 400)).toBe(
      `payment group ${GROUP_ID} has already been processed; use void-or-refund instead; its payments cannot change`,
    );
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand', 'TransactWriteCommand', 'GetCommand']);
  });

  it.each([
    ['processing', 'is being processed'],
    ['deleted', 'is deleted'],
  ] as const)('400 when the group is %s', async (status, why) => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    storedGroup(group({ status }));
    expect(expectError(await add(body()), 400)).toContain(why);
  });

  it('404 when the group does not exist', async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    expect(expectError(await add(body()), 404)).toBe(`payment group ${GROUP_ID} not found`);
  });

  it("404 when the group is another merchant's", async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    storedGroup(group({ merchantId: OTHER_MID }));
    expectError(await add(body()), 404);
  });

  it('503 when the group is pending again when read (it changed concurrently)', async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    storedGroup(group());
    expect(expectError(await add(body()), 503)).toBe('the group changed concurrently; retry the request');
  });

  it('503 for a throttled transaction, 500 for an unknown failure', async () => {
    ddbMock.on(TransactWriteCommand).rejects(awsError('ThrottlingException'));
    expectError(await add(body()), 503);
    ddbMock.on(TransactWriteCommand).rejects(new TypeError('x is undefined'));
    expect((await add(body())).body).toEqual({ message: 'Internal server error', responseCode: 500 });
  });

  it('503 when the transaction is cancelled for a TransactionConflict (a concurrent transaction)', async () => {
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('TransactionConflict', 'None'));
    expect(expectError(await add(body()), 503)).toBe('Service temporarily unavailable; retry with backoff');
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'TransactionConflict'));
    expectError(await add(body()), 503);
    // Not mistaken for a group that is no longer editable: the group is never read to explain it.
    const once = ['GetCommand', 'BatchGetCommand', 'TransactWriteCommand'];
    expect(sentCommands()).toEqual([...once, ...once]);
  });
});

describe('PUT .../payments/{PaymentID} (update payment)', () => {
  const put = (body: unknown) =>
    invoke(updatePayment, { method: 'PUT', pathParameters: paymentPath(), body });
  const body = (over: Record<string, unknown> = {}) => ({
    paymentId: PAYMENT_ID,
    paymentGroupId: GROUP_ID,
    profileId: 'payor2/method2',
    amount: 25.5,
    ...over,
  });

  it('replaces the payment conditionally and moves the total by the difference; 200', async () => {
    const stored = payment({ amountCents: 1999, orderId: 'old', sendPaymentScheduledNotification: true });
    storedPayment(stored);
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await put(body({ sendEmailReceipt: true }));

    expect(response.status).toBe(200);
    expect(methodLookups().map((l) => l.RequestItems.t!.Keys)).toEqual([
      [{ pk: 'PAYOR#payor2', sk: 'METHOD#method2' }],
    ]);
    const [replace, totals] = transactItems();
    expect(replace!.Put).toMatchObject({
      ConditionExpression: 'amountCents = :old AND deleted = :false AND lastUpdated = :lu',
      ExpressionAttributeValues: { ':old': 1999, ':false': false, ':lu': stored.lastUpdated },
      Item: {
        sk: `PAYMENT#${PAYMENT_ID}`,
        amountCents: 2550,
        profileId: 'payor2/method2',
        sendEmailReceipt: true,
      },
    });
    expect(replace!.Put.Item).not.toHaveProperty('orderId', 'old');
    expect(totals!.Update.ExpressionAttributeValues).toMatchObject({ ':c': 0, ':t': 2550 - 1999 });
    expect(response.body).toMatchObject({
      paymentId: PAYMENT_ID,
      amount: 25.5,
      profileId: 'payor2/method2',
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: true,
      dateCreated: stored.dateCreated,
    });
    expect(response.body).not.toHaveProperty('orderId');
  });

  it('400 ImmutableFieldViolation when sendPaymentScheduledNotification changes, without writing', async () => {
    storedPayment(payment({ sendPaymentScheduledNotification: false }));
    const response = await put(body({ sendPaymentScheduledNotification: true }));
    expect(expectError(response, 400)).toContain('ImmutableFieldViolation');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('400 for "deleted" in the body, before reading the payment', async () => {
    expect(expectError(await put(body({ deleted: false })), 400)).toBe(
      'deleted cannot be set by PUT; use DELETE on the payment',
    );
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it.each([
    [{ paymentId: OTHER_ID }, `paymentId ${OTHER_ID} does not match the path (${PAYMENT_ID})`],
    [{ paymentGroupId: OTHER_ID }, `paymentGroupId ${OTHER_ID} does not match the path (${GROUP_ID})`],
  ])('400 for an id that differs from the path: %p', async (over, message) => {
    expect(expectError(await put(body(over)), 400)).toBe(message);
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it.each(['paymentId', 'paymentGroupId', 'profileId', 'amount'])('400 when %s is missing', async (field) => {
    const b: Record<string, unknown> = body();
    delete b[field];
    expect(expectError(await put(b), 400)).toBe(`${field} is required`);
  });

  it('400 when profileId names no saved method of this merchant, before reading or writing the payment', async () => {
    storedPayment(payment());
    savedMethod('payor9/method9', OTHER_MID);
    for (const profileId of ['payor9/method9', 'payor8/method8']) {
      expect(expectError(await put(body({ profileId })), 400)).toBe(
        `profileId ${profileId} names no saved payment method of a payor of this merchant`,
      );
    }
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand', 'GetCommand', 'BatchGetCommand']);
  });

  it.each([
    [{ amount: 0 }, 'amount must be >= 0.01'],
    [{ amount: 1e-9 }, 'amount must be >= 0.01'],
    [{ amount: 19.990000001 }, 'amount must have at most 2 decimal places'],
  ])('400 for %p, before any read', async (over, message) => {
    expect(expectError(await put(body(over)), 400)).toBe(message);
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it('503 without retrying when the transaction is cancelled for a TransactionConflict', async () => {
    storedPayment(payment());
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('TransactionConflict', 'None'));
    expect(expectError(await put(body()), 503)).toBe('Service temporarily unavailable; retry with backoff');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('400 for a deleted payment', async () => {
    storedPayment(payment({ deleted: true }));
    expect(expectError(await put(body()), 400)).toBe(`payment ${PAYMENT_ID} is deleted`);
  });

  it("404 for a missing payment or another merchant's payment", async () => {
    expect(expectError(await put(body()), 404)).toBe(`payment ${PAYMENT_ID} not found`);
    storedPayment(payment({ merchantId: OTHER_MID }));
    expectError(await put(body()), 404);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('400 when the group is no longer editable', async () => {
    storedPayment(payment());
    storedGroup(group({ status: 'processing' }));
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    expect(expectError(await put(body()), 400)).toContain('is being processed');
  });

  it('retries when the payment changed concurrently, then succeeds', async () => {
    storedPayment(payment());
    ddbMock
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCanceled('ConditionalCheckFailed', 'None'))
      .resolves({});
    expect((await put(body())).status).toBe(200);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it(`503 after ${MAX_ATTEMPTS} attempts lost to concurrent changes`, async () => {
    storedPayment(payment());
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('ConditionalCheckFailed', 'None'));
    expect(expectError(await put(body()), 503)).toContain('retry the request');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(MAX_ATTEMPTS);
  });
});

describe('DELETE .../payments/{PaymentID}', () => {
  const del = () => invoke(deletePayment, { method: 'DELETE', pathParameters: paymentPath() });

  it('soft-deletes and takes the payment out of the totals; 204 with no body', async () => {
    storedPayment(payment({ amountCents: 1234 }));
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await del();
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    const [mark, totals] = transactItems();
    expect(mark!.Update).toMatchObject({
      Key: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}` },
      UpdateExpression: 'SET deleted = :true, lastUpdated = :now',
      ConditionExpression: 'deleted = :false AND amountCents = :old',
    });
    expect(totals!.Update.ExpressionAttributeValues).toMatchObject({ ':c': -1, ':t': -1234 });
  });

  it('is a no-op 204 for a payment already deleted', async () => {
    storedPayment(payment({ deleted: true }));
    expect((await del()).status).toBe(204);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('404 for a missing payment', async () => {
    expectError(await del(), 404);
  });

  it('400 when the group is processed', async () => {
    storedPayment(payment());
    storedGroup(group({ status: 'processed' }));
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('None', 'ConditionalCheckFailed'));
    expect(expectError(await del(), 400)).toContain('has already been processed');
  });

  it(`503 after ${MAX_ATTEMPTS} attempts lost to concurrent changes of the payment`, async () => {
    storedPayment(payment());
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('ConditionalCheckFailed', 'None'));
    expect(expectError(await del(), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(MAX_ATTEMPTS);
  });

  it('204 when a concurrent delete won the race (re-read shows it deleted)', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}` } })
      .resolvesOnce({ Item: { ...payment(), entity: 'payment' } })
      .resolves({ Item: { ...payment({ deleted: true }), entity: 'payment' } });
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('ConditionalCheckFailed', 'None'));
    expect((await del()).status).toBe(204);
  });
});

describe('GET .../payments/{PaymentID} and GET .../payments', () => {
  it('returns one payment', async () => {
    storedPayment(payment({ fees: [{ name: 'svc', amountCents: 150 }] }));
    const response = await invoke(getPayment, { pathParameters: paymentPath() });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      paymentId: PAYMENT_ID,
      amount: 19.99,
      fees: [{ name: 'svc', amount: 1.5 }],
    });
  });

  it("404 for another merchant's payment", async () => {
    storedPayment(payment({ merchantId: OTHER_MID }));
    expectError(await invoke(getPayment, { pathParameters: paymentPath() }), 404);
  });

  it('lists every payment, deleted included, following LastEvaluatedKey', async () => {
    storedGroup(group());
    const second = '01890a5d-ac96-774b-bcce-b302099a8060';
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({
        Items: [{ ...payment(), pk: 'x', sk: 'y', entity: 'payment' }],
        LastEvaluatedKey: { pk: 'x' },
      })
      .resolvesOnce({ Items: [{ ...payment({ paymentId: second, deleted: true }), entity: 'payment' }] });
    const response = await invoke(listPayments, { pathParameters: groupPath() });
    expect(response.status).toBe(200);
    expect(response.body.map((p: AnyItem) => [p.paymentId, p.deleted])).toEqual([
      [PAYMENT_ID, false],
      [second, true],
    ]);
    expect(response.body[0]).not.toHaveProperty('pk');
    const queries = ddbMock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': `GROUP#${GROUP_ID}`, ':p': 'PAYMENT#' },
    });
    expect(queries[1]!.ExclusiveStartKey).toEqual({ pk: 'x' });
  });

  it("404 listing the payments of a missing or another merchant's group, without querying", async () => {
    expectError(await invoke(listPayments, { pathParameters: groupPath() }), 404);
    storedGroup(group({ merchantId: OTHER_MID }));
    expectError(await invoke(listPayments, { pathParameters: groupPath() }), 404);
    expect(ddbMock.commandCalls(QueryCommand)).toHaveLength(0);
  });
});
