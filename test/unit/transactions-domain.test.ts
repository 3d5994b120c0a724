import { DECLINE_CATEGORY_DESCRIPTIONS } from '#domain/declines';
import {
  availableRefundCents,
  isSettled,
  refundView,
  transactionView,
  type Refund,
  type Transaction,
} from '#domain/transactions';
import { transaction, TXN_ID } from '#support/fixtures/index';

const ORIGINAL_ID = '01890a5d-ac96-774b-bcce-b302099a8081';
const PROCESSED_AT = '2026-05-10T14:37:12.345Z';
const SETTLES_AT = '2026-05-10T15:30:00.000Z';
const BEFORE_SETTLEMENT = new Date('2026-05-10T15:29:59.999Z');
const AFTER_SETTLEMENT = new Date('2026-05-10T16:00:00.000Z');

const declined = (responseCode: string, responseMessage: string, over: Partial<Transaction> = {}) => {
  const t = transaction({ status: 'Declined', responseCode, responseMessage, approvedCents: 0, ...over });
  delete t.authCode;
  delete t.settlesAt;
  return t;
};

const refund = (over: Partial<Refund> = {}): Refund => ({
  refundId: 'r1',
  transactionId: TXN_ID,
  amountCents: 500,
  status: 'Completed',
  date: '2026-05-11T10:00:00.000Z',
  ...over,
});

describe('transactionView', () => {
  it('an approved sale: full amount charged and refundable, not yet settled', () => {
    const view = transactionView(transaction({ orderId: 'INV-1' }), [], BEFORE_SETTLEMENT);
    expect(view).toEqual({
      transactionId: TXN_ID,
      type: 'sale',
      status: 'Approved',
      responseCode: '00',
      responseMessage: 'Approved',
      isDuplicate: false,
      amount: 19.99,
      approvedAmount: 19.99,
      authCode: 'A1B2C3',
      originalAmount: 19.99,
      refundedAmount: 0,
      availableRefundAmount: 19.99,
      refundCount: 0,
      refundHistory: [],
      profileId: 'payor1/method1',
      accountType: 'VISA',
      maskedAccountNumber: '************1111',
      orderId: 'INV-1',
      processedAt: PROCESSED_AT,
      settled: false,
      settlementTime: SETTLES_AT,
    });
    expect(view).not.toHaveProperty('declineCategory');
    expect(view).not.toHaveProperty('originalTransactionId');
    expect(view).not.toHaveProperty('merchantId');
  });

  it('a partial approval: amount is what was asked, originalAmount and approvedAmount what was charged', () => {
    const view = transactionView(
      transaction({
        responseCode: '10',
        responseMessage: 'Partially approved',
        amountCents: 8000,
        approvedCents: 5000,
      }),
      [],
      BEFORE_SETTLEMENT,
    );
    expect(view).toMatchObject({
      status: 'Approved',
      responseCode: '10',
      amount: 80,
      approvedAmount: 50,
      originalAmount: 50,
      availableRefundAmount: 50,
    });
    expect(view).not.toHaveProperty('declineCategory');
  });

  it.each([
    ['51', 'Insufficient funds', '2'],
    ['61', 'Daily limit exceeded', '2'],
    ['05', 'Do not honor', '1'],
    ['41', 'Lost card', '1'],
  ] as const)(
    'a decline %s carries its category and description; nothing to refund',
    (code, message, category) => {
      const view = transactionView(declined(code, message), [], AFTER_SETTLEMENT);
      expect(view).toMatchObject({
        status: 'Declined',
        responseCode: code,
        responseMessage: message,
        declineCategory: category,
        declineCategoryDescription: DECLINE_CATEGORY_DESCRIPTIONS[category],
        isDuplicate: false,
        amount: 19.99,
        approvedAmount: 0,
        originalAmount: 0,
        refundedAmount: 0,
        availableRefundAmount: 0,
        settled: false,
      });
      expect(view).not.toHaveProperty('authCode');
      expect(view).not.toHaveProperty('settlementTime');
    },
  );

  it('a duplicate: Declined 19, isDuplicate, the original transaction named, category 1', () => {
    const view = transactionView(
      declined('19', 'Duplicate transaction', { isDuplicate: true, originalTransactionId: ORIGINAL_ID }),
      [],
      BEFORE_SETTLEMENT,
    );
    expect(view).toMatchObject({
      status: 'Declined',
      responseCode: '19',
      isDuplicate: true,
      originalTransactionId: ORIGINAL_ID,
      declineCategory: '1',
      declineCategoryDescription: DECLINE_CATEGORY_DESCRIPTIONS['1'],
      availableRefundAmount: 0,
    });
  });

  it('a voided sale: nothing left to refund, never settled, no settlement time, voidedAt shown', () => {
    const voidedAt = '2026-05-10T15:00:00.000Z';
    const view = transactionView(transaction({ status: 'Voided', voidedAt }), [], AFTER_SETTLEMENT);
    expect(view).toMatchObject({
      status: 'Voided',
      originalAmount: 19.99,
      availableRefundAmount: 0,
      settled: false,
      voidedAt,
    });
    expect(view).not.toHaveProperty('settlementTime');
    expect(view).not.toHaveProperty('declineCategory');
  });

  it('refunds: pending and completed ones count, failed ones do not; available = original - refunded', () => {
    const refunds = [
      refund({ refundId: 'r1', amountCents: 2000, status: 'Completed' }),
      refund({ refundId: 'r2', amountCents: 1000, status: 'Pending', date: '2026-05-11T11:00:00.000Z' }),
      refund({ refundId: 'r3', amountCents: 500, status: 'Failed', date: '2026-05-11T12:00:00.000Z' }),
    ];
    const t = transaction({ amountCents: 10000, approvedCents: 10000, refundedCents: 3000, refundCount: 2 });
    const view = transactionView(t, refunds, AFTER_SETTLEMENT);
    expect(view).toMatchObject({
      originalAmount: 100,
      refundedAmount: 30,
      availableRefundAmount: 70,
      refundCount: 2,
      settled: true,
    });
    expect(view.availableRefundAmount).toBe(view.originalAmount - view.refundedAmount);
    expect(view.refundHistory).toEqual([
      { refundId: 'r1', amount: 20, status: 'Completed', date: '2026-05-11T10:00:00.000Z' },
      { refundId: 'r2', amount: 10, status: 'Pending', date: '2026-05-11T11:00:00.000Z' },
      { refundId: 'r3', amount: 5, status: 'Failed', date: '2026-05-11T12:00:00.000Z' },
    ]);
  });

  it('is exact in cents: 0.10 + 0.20 refunded of 0.30 leaves 0', () => {
    const view = transactionView(
      transaction({ amountCents: 30, approvedCents: 30, refundedCents: 30, refundCount: 2 }),
      [],
      AFTER_SETTLEMENT,
    );
    expect(view).toMatchObject({ originalAmount: 0.3, refundedAmount: 0.3, availableRefundAmount: 0 });
  });

  it('a fully refunded partial approval: available is 0, never negative', () => {
    const view = transactionView(
      transaction({ amountCents: 8000, approvedCents: 5000, refundedCents: 5000, refundCount: 1 }),
      [],
      AFTER_SETTLEMENT,
    );
    expect(view).toMatchObject({ originalAmount: 50, refundedAmount: 50, availableRefundAmount: 0 });
  });

  it('settled flips at settlesAt', () => {
    expect(transactionView(transaction(), [], BEFORE_SETTLEMENT).settled).toBe(false);
    expect(transactionView(transaction(), [], new Date(SETTLES_AT)).settled).toBe(true);
    expect(transactionView(transaction(), [], AFTER_SETTLEMENT).settled).toBe(true);
  });

  it('leaves out optional fields that are not set', () => {
    const t = transaction();
    delete t.accountType;
    delete t.maskedAccountNumber;
    const view = transactionView(t, [], BEFORE_SETTLEMENT);
    for (const field of ['accountType', 'maskedAccountNumber', 'orderId', 'paymentId', 'voidedAt']) {
      expect(view).not.toHaveProperty(field);
    }
    expect(transactionView(transaction({ paymentId: 'p1' }), [], BEFORE_SETTLEMENT).paymentId).toBe('p1');
  });
});

describe('isSettled and availableRefundCents', () => {
  it('only an approved sale with a settlement time at or before now is settled', () => {
    expect(isSettled(transaction(), AFTER_SETTLEMENT)).toBe(true);
    expect(isSettled(transaction(), BEFORE_SETTLEMENT)).toBe(false);
    expect(isSettled(transaction({ status: 'Voided' }), AFTER_SETTLEMENT)).toBe(false);
    expect(isSettled(declined('51', 'Insufficient funds'), AFTER_SETTLEMENT)).toBe(false);
    const unscheduled = transaction();
    delete unscheduled.settlesAt;
    expect(isSettled(unscheduled, AFTER_SETTLEMENT)).toBe(false);
  });

  it('is the charged amount minus refunds for approved sales, 0 otherwise', () => {
    expect(availableRefundCents(transaction({ approvedCents: 5000, refundedCents: 1234 }))).toBe(3766);
    expect(availableRefundCents(transaction({ approvedCents: 5000, refundedCents: 6000 }))).toBe(0);
    expect(availableRefundCents(transaction({ status: 'Voided' }))).toBe(0);
    expect(availableRefundCents(declined('05', 'Do not honor'))).toBe(0);
  });
});

describe('refundView', () => {
  it('shows the amount in currency units and the processor response when there is one', () => {
    expect(refundView(refund())).toEqual({
      refundId: 'r1',
      transactionId: TXN_ID,
      amount: 5,
      status: 'Completed',
      date: '2026-05-11T10:00:00.000Z',
    });
    expect(refundView(refund({ responseCode: '00', responseMessage: 'Refund accepted' }))).toMatchObject({
      responseCode: '00',
      responseMessage: 'Refund accepted',
    });
  });
});
