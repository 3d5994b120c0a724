import {
  assertPaymentsEditable,
  assertSameId,
  assertServicePayId,
  assertSlotNotPast,
  currentSlot,
  groupView,
  newGroup,
  newPayment,
  paymentView,
  replacedPayment,
  slotOf,
  updatedGroup,
  type Group,
  type GroupStatus,
  type Payment,
} from '#domain/groups';
import { BadRequestError, ImmutableFieldViolationError } from '#shared/errors';
import type { UpdatePaymentInput, VoidOrRefundResponse } from '#contract/schemas/payments';
import { saleAuthResponse } from '#domain/processing';
import { transactionView } from '#domain/transactions';
import { transaction } from '#support/fixtures/index';

const GROUP_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
const PAYMENT_ID = '01890a5d-ac96-774b-bcce-b302099a8058';
const NOW = new Date('2026-05-10T14:37:12.345Z');
const LATER = new Date('2026-05-10T15:01:00.000Z');

/** The authResponse of an approved sale of 19.99. */
const approved = () =>
  saleAuthResponse(transactionView(transaction({ amountCents: 1999, approvedCents: 1999 }), [], NOW));
const reversal = (over: Partial<VoidOrRefundResponse> = {}): VoidOrRefundResponse => ({
  type: 'Void',
  transactionId: '01890a5d-ac96-774b-bcce-b302099a8080',
  status: 'Voided',
  amount: 19.99,
  date: '2026-05-10T15:00:00.000Z',
  ...over,
});

const group = (over: Partial<Group> = {}): Group => ({
  paymentGroupId: GROUP_ID,
  merchantId: '32350000001',
  scheduleDate: '2026-06-01',
  scheduleHour: 9,
  locationId: 7,
  transactionInitiator: 'Consumer',
  surchargeCompliance: true,
  allowPartial: true,
  status: 'pending',
  paymentCount: 2,
  totalCents: 3049,
  dateCreated: '2026-05-01T00:00:00.000Z',
  lastUpdated: '2026-05-02T00:00:00.000Z',
  ...over,
});

const payment = (over: Partial<Payment> = {}): Payment => ({
  paymentId: PAYMENT_ID,
  paymentGroupId: GROUP_ID,
  merchantId: '32350000001',
  profileId: 'payor1/method1',
  amountCents: 1999,
  recurring: false,
  sendEmailReceipt: false,
  sendPaymentScheduledNotification: true,
  deleted: false,
  dateCreated: '2026-05-01T00:00:00.000Z',
  lastUpdated: '2026-05-01T00:00:00.000Z',
  authResponse: null,
  ...over,
});

const update = (over: Partial<UpdatePaymentInput> = {}): UpdatePaymentInput => ({
  paymentId: PAYMENT_ID,
  paymentGroupId: GROUP_ID,
  profileId: 'payor2/method2',
  amount: 5,
  ...over,
});

describe('slotOf / currentSlot', () => {
  it('pads the hour to two digits and sorts chronologically', () => {
    expect(slotOf('2026-11-21', 9)).toBe('2026-11-21T09');
    expect(slotOf('2026-11-21', 0)).toBe('2026-11-21T00');
    expect(slotOf('2026-11-21', 23)).toBe('2026-11-21T23');
    const slots = [slotOf('2026-11-21', 10), slotOf('2026-11-21', 9), slotOf('2026-11-20', 23)];
    expect([...slots].sort()).toEqual(['2026-11-20T23', '2026-11-21T09', '2026-11-21T10']);
  });

  it('is the UTC hour of an instant', () => {
    expect(currentSlot(NOW)).toBe('2026-05-10T14');
    expect(currentSlot(new Date('2026-05-10T23:59:59.999Z'))).toBe('2026-05-10T23');
    expect(currentSlot(new Date('2026-05-11T00:00:00.000Z'))).toBe('2026-05-11T00');
    // A non-UTC offset is converted: 22:30 at UTC-5 is 03:30 UTC the next day.
    expect(currentSlot(new Date('2026-05-10T22:30:00-05:00'))).toBe('2026-05-11T03');
  });

  it('matches slotOf for the same hour', () => {
    expect(currentSlot(NOW)).toBe(slotOf('2026-05-10', 14));
  });
});

describe('assertSlotNotPast', () => {
  it('allows the current hour, even late in it', () => {
    expect(() => assertSlotNotPast('2026-05-10', 14, NOW)).not.toThrow();
    expect(() => assertSlotNotPast('2026-05-10', 14, new Date('2026-05-10T14:59:59.999Z'))).not.toThrow();
  });

  it('allows future hours and days', () => {
    expect(() => assertSlotNotPast('2026-05-10', 15, NOW)).not.toThrow();
    expect(() => assertSlotNotPast('2026-05-11', 0, NOW)).not.toThrow();
    expect(() => assertSlotNotPast('2027-01-01', 0, NOW)).not.toThrow();
  });

  it('refuses the previous hour with a 400 naming the slot', () => {
    let error: unknown;
    try {
      assertSlotNotPast('2026-05-10', 13, NOW);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    expect((error as Error).message).toContain('2026-05-10T13:00Z is in the past');
  });

  it('refuses earlier days, whatever their hour', () => {
    expect(() => assertSlotNotPast('2026-05-09', 23, NOW)).toThrow(BadRequestError);
    expect(() => assertSlotNotPast('2025-12-31', 23, NOW)).toThrow(BadRequestError);
  });

  it('handles the day boundary: hour 23 of yesterday is past at 00:00, hour 0 of today is not', () => {
    const midnight = new Date('2026-05-11T00:00:00.000Z');
    expect(() => assertSlotNotPast('2026-05-10', 23, midnight)).toThrow(BadRequestError);
    expect(() => assertSlotNotPast('2026-05-11', 0, midnight)).not.toThrow();
    const lastMs = new Date('2026-05-10T23:59:59.999Z');
    expect(() => assertSlotNotPast('2026-05-10', 23, lastMs)).not.toThrow();
    expect(() => assertSlotNotPast('2026-05-10', 22, lastMs)).toThrow(BadRequestError);
  });

  it('handles year boundaries', () => {
    const newYear = new Date('2027-01-01T00:10:00.000Z');
    expect(() => assertSlotNotPast('2026-12-31', 23, newYear)).toThrow(BadRequestError);
    expect(() => assertSlotNotPast('2027-01-01', 0, newYear)).not.toThrow();
  });
});

describe('assertPaymentsEditable', () => {
  it('passes a pending group', () => {
    expect(() => assertPaymentsEditable(group({ status: 'pending' }))).not.toThrow();
  });

  it.each<[GroupStatus, string]>([
    ['processing', 'is being processed'],
    ['processed', 'has already been processed; use void-or-refund instead'],
    ['deleted', 'is deleted'],
  ])('refuses a %s group with a 400 saying why', (status, why) => {
    expect(() => assertPaymentsEditable(group({ status }))).toThrow(BadRequestError);
    expect(() => assertPaymentsEditable(group({ status }))).toThrow(
      `payment group ${GROUP_ID} ${why}; its payments cannot change`,
    );
  });
});

describe('newGroup', () => {
  const input = { servicePayId: '32350000001', scheduleDate: '2026-05-10', scheduleHour: 14, locationId: 3 };

  it('applies the defaults and starts pending with zero totals', () => {
    expect(newGroup(input, '32350000001', GROUP_ID, NOW)).toEqual({
      paymentGroupId: GROUP_ID,
      merchantId: '32350000001',
      scheduleDate: '2026-05-10',
      scheduleHour: 14,
      locationId: 3,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
      status: 'pending',
      paymentCount: 0,
      totalCents: 0,
      dateCreated: NOW.toISOString(),
      lastUpdated: NOW.toISOString(),
    });
  });

  it('keeps explicit settings', () => {
    const g = newGroup(
      { ...input, transactionInitiator: 'Consumer', surchargeCompliance: true, allowPartial: true },
      '32350000001',
      GROUP_ID,
      NOW,
    );
    expect(g).toMatchObject({
      transactionInitiator: 'Consumer',
      surchargeCompliance: true,
      allowPartial: true,
    });
  });

  it('holds the merchant id it is given, not the body servicePayId', () => {
    expect(newGroup({ ...input, servicePayId: '23500001' }, '32350000001', GROUP_ID, NOW).merchantId).toBe(
      '32350000001',
    );
  });

  it('refuses a past slot', () => {
    expect(() => newGroup({ ...input, scheduleHour: 13 }, '32350000001', GROUP_ID, NOW)).toThrow(
      BadRequestError,
    );
  });
});

describe('updatedGroup', () => {
  it('merges the fields present and keeps the others', () => {
    const before = group();
    const next = updatedGroup(before, { locationId: 99, allowPartial: false }, NOW);
    expect(next).toEqual({
      ...before,
      locationId: 99,
      allowPartial: false,
      lastUpdated: NOW.toISOString(),
      eventSeq: 1,
    });
  });

  it('changes every setting when all are given', () => {
    const next = updatedGroup(
      group(),
      {
        scheduleDate: '2026-07-04',
        scheduleHour: 22,
        locationId: 0,
        transactionInitiator: 'Merchant',
        surchargeCompliance: false,
        allowPartial: false,
      },
      NOW,
    );
    expect(next).toMatchObject({
      scheduleDate: '2026-07-04',
      scheduleHour: 22,
      locationId: 0,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
    });
  });

  it('never changes identity, status, totals or dateCreated', () => {
    const before = group();
    const next = updatedGroup(before, { scheduleHour: 20 }, NOW)!;
    expect(next.paymentGroupId).toBe(before.paymentGroupId);
    expect(next.merchantId).toBe(before.merchantId);
    expect(next.status).toBe('pending');
    expect(next.paymentCount).toBe(2);
    expect(next.totalCents).toBe(3049);
    expect(next.dateCreated).toBe(before.dateCreated);
  });

  it('does not modify the group it is given', () => {
    const before = group();
    const copy = { ...before };
    updatedGroup(before, { scheduleHour: 20, locationId: 1 }, NOW);
    expect(before).toEqual(copy);
  });

  it.each<GroupStatus>(['processing', 'processed'])(
    'ignores the update of a %s group (undefined)',
    (status) => {
      expect(updatedGroup(group({ status }), { scheduleHour: 20 }, NOW)).toBeUndefined();
      // Even an update that would be refused on a pending group is ignored, not refused.
      expect(updatedGroup(group({ status }), { scheduleDate: '2020-01-01' }, NOW)).toBeUndefined();
    },
  );

  it('refuses a deleted group with 400', () => {
    expect(() => updatedGroup(group({ status: 'deleted' }), { locationId: 1 }, NOW)).toThrow(BadRequestError);
    expect(() => updatedGroup(group({ status: 'deleted' }), { locationId: 1 }, NOW)).toThrow(
      `payment group ${GROUP_ID} is deleted`,
    );
  });

  it('refuses a reschedule into the past (date or hour)', () => {
    expect(() => updatedGroup(group(), { scheduleDate: '2026-05-09' }, NOW)).toThrow(BadRequestError);
    expect(() =>
      updatedGroup(group({ scheduleDate: '2026-05-10', scheduleHour: 20 }), { scheduleHour: 13 }, NOW),
    ).toThrow(BadRequestError);
  });

  it('allows a reschedule into the current hour', () => {
    expect(updatedGroup(group(), { scheduleDate: '2026-05-10', scheduleHour: 14 }, NOW)).toMatchObject({
      scheduleDate: '2026-05-10',
      scheduleHour: 14,
    });
  });

  it('does not refuse a group whose own slot has passed when the schedule is not changed', () => {
    const overdue = group({ scheduleDate: '2026-05-10', scheduleHour: 14 });
    expect(updatedGroup(overdue, { locationId: 5 }, LATER)).toMatchObject({
      locationId: 5,
      scheduleHour: 14,
    });
    // Restating the same slot is not a reschedule either.
    expect(updatedGroup(overdue, { scheduleDate: '2026-05-10', scheduleHour: 14 }, LATER)).toBeDefined();
  });
});

describe('newPayment', () => {
  const owner = { paymentGroupId: GROUP_ID, merchantId: '32350000001' };

  it('applies defaults and holds cents', () => {
    expect(newPayment({ profileId: 'p/m', amount: 19.99 }, owner, PAYMENT_ID, NOW)).toEqual({
      paymentId: PAYMENT_ID,
      paymentGroupId: GROUP_ID,
      merchantId: '32350000001',
      profileId: 'p/m',
      amountCents: 1999,
      orderId: undefined,
      recurring: false,
      allowPartial: undefined,
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: false,
      sendDeclineNotification: false,
      customAttributes: undefined,
      fees: undefined,
      deleted: false,
      dateCreated: NOW.toISOString(),
      lastUpdated: NOW.toISOString(),
      authResponse: null,
    });
  });

  it('keeps optional fields and converts fee amounts to cents', () => {
    const p = newPayment(
      {
        paymentGroupId: GROUP_ID,
        profileId: 'p/m',
        amount: 0.01,
        orderId: 'INV-1',
        recurring: true,
        allowPartial: false,
        sendEmailReceipt: true,
        sendPaymentScheduledNotification: true,
        customAttributes: { a: 'x', b: 2, c: true },
        fees: [
          { name: 'service', amount: 1.5 },
          { name: 'waived', amount: 0 },
        ],
      },
      owner,
      PAYMENT_ID,
      NOW,
    );
    expect(p).toMatchObject({
      amountCents: 1,
      orderId: 'INV-1',
      recurring: true,
      allowPartial: false,
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: true,
      customAttributes: { a: 'x', b: 2, c: true },
      fees: [
        { name: 'service', amountCents: 150 },
        { name: 'waived', amountCents: 0 },
      ],
    });
  });

  it('takes group and merchant from the group, not from the body', () => {
    const p = newPayment(
      { paymentGroupId: '00000000-0000-4000-8000-000000000000', profileId: 'p/m', amount: 1 },
      owner,
      PAYMENT_ID,
      NOW,
    );
    expect(p.paymentGroupId).toBe(GROUP_ID);
    expect(p.merchantId).toBe('32350000001');
  });
});

describe('replacedPayment', () => {
  it('replaces the integrator fields and keeps identity, status and creation data', () => {
    const existing = payment({
      orderId: 'old',
      recurring: true,
      allowPartial: true,
      sendEmailReceipt: true,
      customAttributes: { k: 'v' },
      fees: [{ name: 'f', amountCents: 100 }],
      authResponse: null,
    });
    const next = replacedPayment(existing, update({ amount: 12.34, sendEmailReceipt: false }), LATER);
    expect(next).toMatchObject({
      paymentId: PAYMENT_ID,
      paymentGroupId: GROUP_ID,
      merchantId: '32350000001',
      profileId: 'payor2/method2',
      amountCents: 1234,
      recurring: false,
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: true,
      deleted: false,
      dateCreated: existing.dateCreated,
      lastUpdated: LATER.toISOString(),
    });
    // Full replacement: optional fields absent from the body are cleared.
    expect(next.orderId).toBeUndefined();
    expect(next.allowPartial).toBeUndefined();
    expect(next.customAttributes).toBeUndefined();
    expect(next.fees).toBeUndefined();
  });

  it('keeps sendPaymentScheduledNotification when the body omits it', () => {
    expect(
      replacedPayment(payment({ sendPaymentScheduledNotification: true }), update(), LATER),
    ).toMatchObject({
      sendPaymentScheduledNotification: true,
    });
    expect(
      replacedPayment(payment({ sendPaymentScheduledNotification: false }), update(), LATER),
    ).toMatchObject({
      sendPaymentScheduledNotification: false,
    });
  });

  it('accepts sendPaymentScheduledNotification restated unchanged', () => {
    const next = replacedPayment(payment(), update({ sendPaymentScheduledNotification: true }), LATER);
    expect(next.sendPaymentScheduledNotification).toBe(true);
  });

  it.each([
    [true, false],
    [false, true],
  ])(
    'refuses sendPaymentScheduledNotification %p → %p with ImmutableFieldViolation (400)',
    (stored, requested) => {
      let error: unknown;
      try {
        replacedPayment(
          payment({ sendPaymentScheduledNotification: stored }),
          update({ sendPaymentScheduledNotification: requested }),
          LATER,
        );
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ImmutableFieldViolationError);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).status).toBe(400);
      expect((error as Error).message).toContain('ImmutableFieldViolation');
      expect((error as Error).message).toContain('sendPaymentScheduledNotification');
    },
  );

  it('refuses a deleted payment with 400', () => {
    expect(() => replacedPayment(payment({ deleted: true }), update(), LATER)).toThrow(BadRequestError);
    expect(() => replacedPayment(payment({ deleted: true }), update(), LATER)).toThrow(
      `payment ${PAYMENT_ID} is deleted`,
    );
  });

  it('keeps authResponse and voidOrRefundResponses of the stored payment', () => {
    const existing = payment({ authResponse: approved(), voidOrRefundResponses: [reversal()] });
    const next = replacedPayment(existing, update(), LATER);
    expect(next.authResponse).toEqual(approved());
    expect(next.voidOrRefundResponses).toEqual([reversal()]);
  });
});

describe('assertSameId', () => {
  it('passes when the body omits the id', () => {
    expect(() => assertSameId('paymentGroupId', undefined, GROUP_ID)).not.toThrow();
  });

  it('compares case-insensitively', () => {
    expect(() => assertSameId('paymentGroupId', GROUP_ID.toUpperCase(), GROUP_ID)).not.toThrow();
    expect(() => assertSameId('paymentGroupId', GROUP_ID, GROUP_ID.toUpperCase())).not.toThrow();
  });

  it('refuses a different id with 400 naming the field', () => {
    expect(() => assertSameId('paymentId', PAYMENT_ID, GROUP_ID)).toThrow(BadRequestError);
    expect(() => assertSameId('paymentId', PAYMENT_ID, GROUP_ID)).toThrow(
      `paymentId ${PAYMENT_ID} does not match the path (${GROUP_ID})`,
    );
  });
});

describe('assertServicePayId', () => {
  const merchant = { merchantId: '32350000001', shortId: '23500001' };

  it('accepts the 11-digit and the 8-digit form, and absence', () => {
    expect(() => assertServicePayId('32350000001', merchant)).not.toThrow();
    expect(() => assertServicePayId('23500001', merchant)).not.toThrow();
    expect(() => assertServicePayId(undefined, merchant)).not.toThrow();
  });

  it.each(['32350000002', '23500002', '41000000001', ''])('refuses %p with 400', (id) => {
    expect(() => assertServicePayId(id, merchant)).toThrow(BadRequestError);
    expect(() => assertServicePayId(id, merchant)).toThrow('does not match the merchant in the path');
  });

  it('refuses an 8-digit form when the merchant has none', () => {
    expect(() => assertServicePayId('23500001', { merchantId: '32350000001' })).toThrow(BadRequestError);
    expect(() => assertServicePayId('32350000001', { merchantId: '32350000001' })).not.toThrow();
  });
});

describe('groupView', () => {
  it('is the API shape: servicePayId, amounts in currency units, deleted from status', () => {
    expect(groupView(group())).toEqual({
      paymentGroupId: GROUP_ID,
      servicePayId: '32350000001',
      scheduleDate: '2026-06-01',
      scheduleHour: 9,
      locationId: 7,
      transactionInitiator: 'Consumer',
      surchargeCompliance: true,
      allowPartial: true,
      status: 'pending',
      deleted: false,
      paymentCount: 2,
      totalAmount: 30.49,
      dateCreated: '2026-05-01T00:00:00.000Z',
      lastUpdated: '2026-05-02T00:00:00.000Z',
    });
  });

  it('does not leak internal fields', () => {
    const view = groupView(group()) as unknown as Record<string, unknown>;
    expect(view).not.toHaveProperty('merchantId');
    expect(view).not.toHaveProperty('totalCents');
  });

  it.each<[GroupStatus, boolean]>([
    ['pending', false],
    ['processing', false],
    ['processed', false],
    ['deleted', true],
  ])('status %s → deleted %p', (status, deleted) => {
    expect(groupView(group({ status }))).toMatchObject({ status, deleted });
  });

  it('keeps totalAmount exact for large sums', () => {
    expect(groupView(group({ totalCents: 999999999999 })).totalAmount).toBe(9999999999.99);
    expect(groupView(group({ totalCents: 0 })).totalAmount).toBe(0);
  });
});

describe('paymentView', () => {
  it('omits optional fields that are absent', () => {
    const view = paymentView(payment());
    expect(view).toEqual({
      paymentId: PAYMENT_ID,
      paymentGroupId: GROUP_ID,
      profileId: 'payor1/method1',
      amount: 19.99,
      recurring: false,
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: true,
      sendDeclineNotification: false,
      deleted: false,
      dateCreated: '2026-05-01T00:00:00.000Z',
      lastUpdated: '2026-05-01T00:00:00.000Z',
      authResponse: null,
      attempts: [],
    });
    for (const absent of [
      'orderId',
      'allowPartial',
      'customAttributes',
      'fees',
      'voidOrRefundResponses',
      'merchantId',
      'retry',
    ]) {
      expect(view).not.toHaveProperty(absent);
    }
    // authResponse is always present: null until processed.
    expect(view).toHaveProperty('authResponse', null);
  });

  it('includes optional fields that are present, fees in currency units', () => {
    const view = paymentView(
      payment({
        orderId: 'INV-9',
        allowPartial: false,
        customAttributes: { x: 1 },
        fees: [{ name: 'svc', amountCents: 250 }],
        deleted: true,
        authResponse: approved(),
        voidOrRefundResponses: [reversal({ type: 'Refund', status: 'Completed' })],
      }),
    );
    expect(view).toMatchObject({
      orderId: 'INV-9',
      allowPartial: false,
      customAttributes: { x: 1 },
      fees: [{ name: 'svc', amount: 2.5 }],
      deleted: true,
      authResponse: { status: 'Approved', amount: 19.99 },
      voidOrRefundResponses: [{ type: 'Refund', amount: 19.99 }],
    });
    expect(view.fees![0]).not.toHaveProperty('amountCents');
  });

  it('round-trips a created payment', () => {
    const created = newPayment(
      { profileId: 'p/m', amount: 999999.99, orderId: 'o' },
      { paymentGroupId: GROUP_ID, merchantId: 'm' },
      PAYMENT_ID,
      NOW,
    );
    expect(paymentView(created)).toMatchObject({
      amount: 999999.99,
      orderId: 'o',
      deleted: false,
      authResponse: null,
    });
    expect(paymentView(created)).not.toHaveProperty('fees');
  });
});

describe('saleAuthResponse', () => {
  it('is the sale view of an approved or declined sale', () => {
    const view = transactionView(transaction({ status: 'Declined', approvedCents: 0 }), [], NOW);
    expect(saleAuthResponse(view)).toEqual(view);
  });

  it('refuses a voided sale: a payment records its sale before anything can void it', () => {
    const view = transactionView(transaction({ status: 'Voided', voidedAt: NOW.toISOString() }), [], NOW);
    expect(() => saleAuthResponse(view)).toThrow('is Voided: not an answer for its payment');
  });

  it('refuses a Pending sale: the processor has not answered it yet', () => {
    const view = transactionView(transaction({ status: 'Pending', responseCode: 'PD' }), [], NOW);
    expect(() => saleAuthResponse(view)).toThrow('is Pending: not an answer for its payment');
  });
});
