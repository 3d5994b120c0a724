/**
 * Payment handlers against in-memory group and payment stores (support/fakes.ts): status, body
 * and what the stores hold afterwards. Grants and saved-method lookups still go through the
 * DynamoDB mock (support/api.ts). The DynamoDB commands of each store method are asserted on
 * DynamoDB Local in test/integration/group-store.test.ts.
 */
import '#support/handlers/env';
import '#support/handlers/fake-stores';
import { memory } from '#support/handlers/fakes';
import { MAX_ATTEMPTS } from '#shared/optimistic-concurrency';
import type { Payment } from '#domain/groups';
import { handler as addPayment } from '#lambdas/payments/add-payment';
import { handler as deletePayment } from '#lambdas/payments/delete-payment';
import { handler as getPayment } from '#lambdas/payments/get-payment';
import { handler as listPayments } from '#lambdas/payments/list-payments';
import { handler as updatePayment } from '#lambdas/payments/update-payment';
import {
  awsError,
  payorLookups,
  PAYOR_COPY_PROJECTION,
  expectError,
  group,
  GROUP_ID,
  groupPath,
  invoke,
  MERCHANT_NAME,
  METHOD_PROJECTION,
  METHOD_PROJECTION_NAMES,
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
  transactionCanceled,
} from '#support/handlers/invoke';

type AnyItem = Record<string, any>;

const OTHER_ID = '01890a5d-ac96-774b-bcce-b302099a8059';

beforeEach(() => {
  resetDb();
  memory.reset();
});

/** A group as stored, with its payments (the group's totals are taken as given). */
function stored(g = group(), ...payments: Payment[]): void {
  memory.groups.set(g.paymentGroupId, structuredClone(g));
  for (const p of payments) memory.paymentsOf(p.paymentGroupId).set(p.paymentId, structuredClone(p));
}
const storedGroupNow = () => memory.groups.get(GROUP_ID)!;
const storedPaymentNow = (id = PAYMENT_ID) => memory.payments.get(GROUP_ID)?.get(id);

describe('POST .../payments (add payment)', () => {
  const add = (body: unknown) => invoke(addPayment, { method: 'POST', pathParameters: groupPath(), body });
  const body = (over: Record<string, unknown> = {}) => ({
    paymentGroupId: GROUP_ID,
    profileId: 'payor1/method1',
    amount: 19.99,
    ...over,
  });

  it('adds the payment and moves the group totals; 201 with the payment', async () => {
    stored(group({ paymentCount: 1, totalCents: 1000 }));
    const response = await add(body({ orderId: 'INV-7', sendEmailReceipt: true }));

    expect(response.status).toBe(201);
    // One saved method looked up, and its payor (the sponsorKey the payment copies).
    expect(methodLookups()).toEqual([
      {
        RequestItems: {
          t: {
            Keys: [{ pk: 'PAYOR#payor1', sk: 'METHOD#method1' }],
            ProjectionExpression: METHOD_PROJECTION,
            ExpressionAttributeNames: METHOD_PROJECTION_NAMES,
            ConsistentRead: true,
          },
        },
      },
    ]);
    expect(payorLookups()).toHaveLength(1);
    expect(memory.groupReads).toBe(0);
    const paymentId = response.body.paymentId as string;
    expect(storedPaymentNow(paymentId)).toMatchObject({
      paymentGroupId: GROUP_ID,
      merchantId: MID,
      amountCents: 1999,
      orderId: 'INV-7',
      deleted: false,
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: false,
      authResponse: null,
    });
    expect(storedGroupNow()).toMatchObject({ paymentCount: 2, totalCents: 1000 + 1999 });
    expect(memory.outbox).toEqual([]);
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
    it('writes the notice naming the group slot together with the payment', async () => {
      stored(group({ scheduleDate: '2099-12-24', scheduleHour: 23 }));
      payorEmail('payor1', 'payor@example.com');
      savedMethod('payor1/method1', MID, { maskedAccountNumber: '*****6789', accountType: 'CHECKING' });
      const response = await add(body({ orderId: 'INV-7', sendPaymentScheduledNotification: true }));

      expect(response.status).toBe(201);
      // The group is read once, for the slot the notice names.
      expect(memory.groupReads).toBe(1);
      expect(payorLookups()).toEqual([
        {
          RequestItems: {
            t: {
              Keys: [{ pk: 'PAYOR#payor1', sk: 'PAYOR' }],
              ProjectionExpression: PAYOR_COPY_PROJECTION,
              ConsistentRead: true,
            },
          },
        },
      ]);
      const paymentId = response.body.paymentId as string;
      expect(storedPaymentNow(paymentId)).toMatchObject({ sendPaymentScheduledNotification: true });
      expect(memory.outbox).toEqual([
        {
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
      ]);
      expect(response.body.sendPaymentScheduledNotification).toBe(true);
    });

    it('writes no notice when the payor has no e-mail address', async () => {
      stored();
      payorEmail('payor1', undefined);
      const response = await add(body({ sendPaymentScheduledNotification: true }));
      expect(response.status).toBe(201);
      expect(payorLookups()).toHaveLength(1);
      expect(memory.outbox).toEqual([]);
      expect(storedPaymentNow(response.body.paymentId)?.sendPaymentScheduledNotification).toBe(true);
    });

    it('writes no notice for an unflagged payment, even when the payor has an e-mail', async () => {
      stored();
      payorEmail('payor1', 'payor@example.com');
      const response = await add(body({ sendPaymentScheduledNotification: false }));
      expect(response.status).toBe(201);
      expect(memory.groupReads).toBe(0);
      expect(payorLookups()).toHaveLength(1);
      expect(memory.outbox).toEqual([]);
    });

    it("404 before any write when the group is missing or another merchant's", async () => {
      payorEmail('payor1', 'payor@example.com');
      expect(expectError(await add(body({ sendPaymentScheduledNotification: true })), 404)).toBe(
        `payment group ${GROUP_ID} not found`,
      );
      stored(group({ merchantId: OTHER_MID }));
      expectError(await add(body({ sendPaymentScheduledNotification: true })), 404);
      expect(memory.outbox).toEqual([]);
      expect(memory.paymentWrites).toBe(0);
    });

    it('400 when the group is processed: neither the payment nor the notice is written', async () => {
      stored(group({ status: 'processed' }));
      payorEmail('payor1', 'payor@example.com');
      const response = await add(body({ sendPaymentScheduledNotification: true }));
      expect(expectError(response, 400)).toContain('has already been processed');
      expect(memory.paymentsOf(GROUP_ID).size).toBe(0);
      expect(memory.outbox).toEqual([]);
    });

    it('retries the write with the group as it now is when the group moved to another slot after it was read', async () => {
      stored(group({ scheduleHour: 9 }));
      payorEmail('payor1', 'payor@example.com');
      // A concurrent reschedule between the read and the write: the notice would name a stale
      // slot, so that write is refused, and the next attempt reads the group again.
      memory.interference.push('group-not-editable');
      expect((await add(body({ sendPaymentScheduledNotification: true }))).status).toBe(201);
      expect(memory.paymentWrites).toBe(2);
      expect(memory.outbox).toHaveLength(1);
    });
  });

  it('accepts an upper-case paymentGroupId in the body for the same group', async () => {
    stored();
    expect((await add(body({ paymentGroupId: GROUP_ID.toUpperCase() }))).status).toBe(201);
  });

  it('400 when paymentGroupId differs from the path, before any lookup or write', async () => {
    stored();
    expect(expectError(await add(body({ paymentGroupId: OTHER_ID })), 400)).toBe(
      `paymentGroupId ${OTHER_ID} does not match the path (${GROUP_ID})`,
    );
    expect(methodLookups()).toHaveLength(0);
    expect(memory.paymentWrites).toBe(0);
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
    stored();
    expect(expectError(await add(body(over)), 400)).toBe(message);
    expect(memory.paymentWrites).toBe(0);
  });

  it.each([113298.68, 999999.99, 0.01])(
    'accepts the amount %p and stores it as exact cents',
    async (amount) => {
      stored();
      const response = await add(body({ amount }));
      expect(response.status).toBe(201);
      expect(response.body.amount).toBe(amount);
      expect(storedPaymentNow(response.body.paymentId)?.amountCents).toBe(Math.round(amount * 100));
    },
  );

  it('400 when profileId names no saved method, before any write', async () => {
    stored();
    noSavedMethods();
    const response = await add(body({ profileId: 'payor9/method9' }));
    expect(expectError(response, 400)).toBe(
      'profileId payor9/method9 names no saved payment method of a payor of this merchant',
    );
    expect(memory.paymentWrites).toBe(0);
  });

  it("400 when profileId names another merchant's saved method, before any write", async () => {
    stored();
    savedMethod('payor9/method9', OTHER_MID);
    const response = await add(body({ profileId: 'payor9/method9' }));
    expect(expectError(response, 400)).toBe(
      'profileId payor9/method9 names no saved payment method of a payor of this merchant',
    );
    expect(memory.paymentWrites).toBe(0);
  });

  it('looks the method up by lower-cased payor and method ids', async () => {
    stored();
    expect((await add(body({ profileId: 'PAYOR1/Method1' }))).status).toBe(201);
    expect(methodLookups()[0]!.RequestItems.t!.Keys).toEqual([{ pk: 'PAYOR#payor1', sk: 'METHOD#method1' }]);
  });

  it('400 when the group is processed, explained by reading the group', async () => {
    stored(group({ status: 'processed' }));
    const response = await add(body());
    expect(expectError(response, 400)).toBe(
      `payment group ${GROUP_ID} has already been processed; use void-or-refund instead; its payments cannot change`,
    );
    expect(memory.paymentsOf(GROUP_ID).size).toBe(0);
  });

  it.each([
    ['processing', 'is being processed'],
    ['deleted', 'is deleted'],
  ] as const)('400 when the group is %s', async (status, why) => {
    stored(group({ status }));
    expect(expectError(await add(body()), 400)).toContain(why);
  });

  it('400 when the group is full', async () => {
    stored(group({ paymentCount: 100_000 }));
    expect(expectError(await add(body()), 400)).toBe('a group holds at most 100000 payments');
  });

  it('404 when the group does not exist', async () => {
    expect(expectError(await add(body()), 404)).toBe(`payment group ${GROUP_ID} not found`);
  });

  it("404 when the group is another merchant's", async () => {
    stored(group({ merchantId: OTHER_MID }));
    expectError(await add(body()), 404);
    expect(memory.paymentsOf(GROUP_ID).size).toBe(0);
  });

  it('retries when the group refused the write but is pending and has room when read again (it changed concurrently)', async () => {
    stored();
    memory.interference.push('group-not-editable');
    expect((await add(body())).status).toBe(201);
    expect(memory.paymentWrites).toBe(2);
  });

  it(`503 after ${MAX_ATTEMPTS} writes refused by a group that keeps changing`, async () => {
    stored();
    memory.interference.push(...Array<'group-not-editable'>(MAX_ATTEMPTS).fill('group-not-editable'));
    expect(expectError(await add(body()), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(memory.paymentWrites).toBe(MAX_ATTEMPTS);
  });

  it('503 for a throttled write, 500 for an unknown failure', async () => {
    stored();
    memory.failures.push(awsError('ThrottlingException'));
    expectError(await add(body()), 503);
    memory.failures.push(new TypeError('x is undefined'));
    expect((await add(body())).body).toEqual({ message: 'Internal server error', responseCode: 500 });
  });

  it('retries a write cancelled for a TransactionConflict (another writer held the group): 201', async () => {
    stored();
    memory.failures.push(transactionCanceled('TransactionConflict', 'None'));
    expect((await add(body())).status).toBe(201);
    expect(memory.paymentWrites).toBe(2);
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

  it('replaces the payment and moves the total by the difference; 200', async () => {
    const before = payment({ amountCents: 1999, orderId: 'old', sendPaymentScheduledNotification: true });
    stored(group({ paymentCount: 1, totalCents: 1999 }), before);
    const response = await put(body({ sendEmailReceipt: true }));

    expect(response.status).toBe(200);
    expect(methodLookups().map((l) => l.RequestItems.t!.Keys)).toEqual([
      [{ pk: 'PAYOR#payor2', sk: 'METHOD#method2' }],
    ]);
    const after = storedPaymentNow()!;
    expect(after).toMatchObject({ amountCents: 2550, profileId: 'payor2/method2', sendEmailReceipt: true });
    expect(after).not.toHaveProperty('orderId', 'old');
    expect(storedGroupNow()).toMatchObject({ paymentCount: 1, totalCents: 2550 });
    expect(response.body).toMatchObject({
      paymentId: PAYMENT_ID,
      amount: 25.5,
      profileId: 'payor2/method2',
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: true,
      dateCreated: before.dateCreated,
    });
    expect(response.body).not.toHaveProperty('orderId');
  });

  it('400 ImmutableFieldViolation when sendPaymentScheduledNotification changes, without writing', async () => {
    stored(group(), payment({ sendPaymentScheduledNotification: false }));
    const response = await put(body({ sendPaymentScheduledNotification: true }));
    expect(expectError(response, 400)).toContain('ImmutableFieldViolation');
    expect(memory.paymentWrites).toBe(0);
  });

  it('400 for "deleted" in the body, before any lookup', async () => {
    expect(expectError(await put(body({ deleted: false })), 400)).toBe(
      'deleted cannot be set by PUT; use DELETE on the payment',
    );
    expect(methodLookups()).toHaveLength(0);
  });

  it.each([
    [{ paymentId: OTHER_ID }, `paymentId ${OTHER_ID} does not match the path (${PAYMENT_ID})`],
    [{ paymentGroupId: OTHER_ID }, `paymentGroupId ${OTHER_ID} does not match the path (${GROUP_ID})`],
  ])('400 for an id that differs from the path: %p', async (over, message) => {
    expect(expectError(await put(body(over)), 400)).toBe(message);
    expect(methodLookups()).toHaveLength(0);
  });

  it.each(['paymentId', 'paymentGroupId', 'profileId', 'amount'])('400 when %s is missing', async (field) => {
    const b: Record<string, unknown> = body();
    delete b[field];
    expect(expectError(await put(b), 400)).toBe(`${field} is required`);
  });

  it('400 when profileId names no saved method of this merchant, without writing the payment', async () => {
    stored(group(), payment());
    savedMethod('payor9/method9', OTHER_MID);
    for (const profileId of ['payor9/method9', 'payor8/method8']) {
      expect(expectError(await put(body({ profileId })), 400)).toBe(
        `profileId ${profileId} names no saved payment method of a payor of this merchant`,
      );
    }
    expect(memory.paymentWrites).toBe(0);
    expect(storedPaymentNow()).toEqual(payment());
  });

  it.each([
    [{ amount: 0 }, 'amount must be >= 0.01'],
    [{ amount: 1e-9 }, 'amount must be >= 0.01'],
    [{ amount: 19.990000001 }, 'amount must have at most 2 decimal places'],
  ])('400 for %p, before any lookup', async (over, message) => {
    expect(expectError(await put(body(over)), 400)).toBe(message);
    expect(methodLookups()).toHaveLength(0);
  });

  it('retries a write cancelled for a TransactionConflict: 200', async () => {
    stored(group(), payment());
    memory.failures.push(transactionCanceled('TransactionConflict', 'None'));
    expect((await put(body())).status).toBe(200);
    expect(memory.paymentWrites).toBe(2);
  });

  it('400 for a deleted payment', async () => {
    stored(group(), payment({ deleted: true }));
    expect(expectError(await put(body()), 400)).toBe(`payment ${PAYMENT_ID} is deleted`);
  });

  it("404 for a missing payment or another merchant's payment", async () => {
    stored();
    expect(expectError(await put(body()), 404)).toBe(`payment ${PAYMENT_ID} not found`);
    stored(group(), payment({ merchantId: OTHER_MID }));
    expectError(await put(body()), 404);
    expect(memory.paymentWrites).toBe(0);
  });

  it('400 when the group is no longer editable', async () => {
    stored(group({ status: 'processing' }), payment());
    expect(expectError(await put(body()), 400)).toContain('is being processed');
    expect(storedPaymentNow()).toEqual(payment());
  });

  it('retries when the payment changed concurrently, then succeeds', async () => {
    stored(group(), payment());
    memory.interference.push('payment-changed');
    expect((await put(body())).status).toBe(200);
    expect(memory.paymentWrites).toBe(2);
    expect(storedPaymentNow()?.amountCents).toBe(2550);
  });

  it(`503 after ${MAX_ATTEMPTS} attempts lost to concurrent changes`, async () => {
    stored(group(), payment());
    memory.interference.push(...Array<'payment-changed'>(MAX_ATTEMPTS + 1).fill('payment-changed'));
    expect(expectError(await put(body()), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(memory.paymentWrites).toBe(MAX_ATTEMPTS);
  });
});

describe('DELETE .../payments/{PaymentID}', () => {
  const del = () => invoke(deletePayment, { method: 'DELETE', pathParameters: paymentPath() });

  it('soft-deletes and takes the payment out of the totals; 204 with no body', async () => {
    stored(group({ paymentCount: 1, totalCents: 1234 }), payment({ amountCents: 1234 }));
    const response = await del();
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    expect(storedPaymentNow()?.deleted).toBe(true);
    expect(storedGroupNow()).toMatchObject({ paymentCount: 0, totalCents: 0 });
  });

  it('is a no-op 204 for a payment already deleted', async () => {
    stored(group(), payment({ deleted: true }));
    expect((await del()).status).toBe(204);
    expect(memory.paymentWrites).toBe(0);
  });

  it('404 for a missing payment', async () => {
    stored();
    expectError(await del(), 404);
  });

  it('400 when the group is processed', async () => {
    stored(group({ status: 'processed' }), payment());
    expect(expectError(await del(), 400)).toContain('has already been processed');
    expect(storedPaymentNow()?.deleted).toBe(false);
  });

  it(`503 after ${MAX_ATTEMPTS} attempts lost to concurrent changes of the payment`, async () => {
    stored(group(), payment());
    memory.interference.push(...Array<'payment-changed'>(MAX_ATTEMPTS + 1).fill('payment-changed'));
    expect(expectError(await del(), 503)).toBe(
      'too many concurrent changes to this resource; retry the request',
    );
    expect(memory.paymentWrites).toBe(MAX_ATTEMPTS);
  });

  it('204 when a concurrent delete won the race (re-read shows it deleted)', async () => {
    stored(group(), payment());
    // The first write loses to a concurrent delete, which the re-read then finds.
    const fakePayments = memory.paymentsOf(GROUP_ID);
    memory.interference.push('payment-changed');
    const original = memory.interference.shift.bind(memory.interference);
    memory.interference.shift = () => {
      fakePayments.get(PAYMENT_ID)!.deleted = true;
      return original();
    };
    expect((await del()).status).toBe(204);
    expect(memory.paymentWrites).toBe(1);
  });
});

describe('GET .../payments/{PaymentID} and GET .../payments', () => {
  it('returns one payment', async () => {
    stored(group(), payment({ fees: [{ name: 'svc', amountCents: 150 }] }));
    const response = await invoke(getPayment, { pathParameters: paymentPath() });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      paymentId: PAYMENT_ID,
      amount: 19.99,
      fees: [{ name: 'svc', amount: 1.5 }],
    });
  });

  it("404 for another merchant's payment", async () => {
    stored(group(), payment({ merchantId: OTHER_MID }));
    expectError(await invoke(getPayment, { pathParameters: paymentPath() }), 404);
  });

  it('lists every payment, deleted included, in creation order', async () => {
    const second = '01890a5d-ac96-774b-bcce-b302099a8060';
    stored(group(), payment({ paymentId: second, deleted: true }), payment());
    const response = await invoke(listPayments, { pathParameters: groupPath() });
    expect(response.status).toBe(200);
    expect(response.body.map((p: AnyItem) => [p.paymentId, p.deleted])).toEqual([
      [PAYMENT_ID, false],
      [second, true],
    ]);
    expect(response.body[0]).not.toHaveProperty('merchantId');
  });

  it("404 listing the payments of a missing or another merchant's group", async () => {
    expectError(await invoke(listPayments, { pathParameters: groupPath() }), 404);
    stored(group({ merchantId: OTHER_MID }), payment({ merchantId: OTHER_MID }));
    const response = await invoke(listPayments, { pathParameters: groupPath() });
    expectError(response, 404);
  });
});
