/**
 * The rules of reversals of bank debits (lambdas/domain/transactions.ts; docs/product.md
 * "Reversals of bank debits"): which sale is a debit that has not cleared (its refunds held), a
 * returned sale has nothing to void or refund (400 saying so), and a processor that cannot cancel
 * a submitted debit refuses its void (refund it instead, held).
 */
import {
  availableRefundCents,
  debitVoidRefusal,
  isUnclearedDebit,
  refundView,
  returnedRefusal,
  type Transaction,
} from '#domain/transactions';
import { transaction } from '#support/fixtures/index';

const debit = (over: Partial<Transaction> = {}): Transaction =>
  transaction({ accountType: 'CHECKING', maskedAccountNumber: '********6789', cleared: false, ...over });
const returned = debit({
  status: 'Returned',
  return: {
    code: 'R01',
    reason: 'Insufficient funds',
    category: 'nsf',
    returnedAt: '2026-05-13T10:30:00.000Z',
  },
});

describe('a refund of a bank debit is held until it clears', () => {
  it('an approved CHECKING or SAVINGS debit not cleared yet (or recorded before clearing was kept)', () => {
    expect(isUnclearedDebit(debit())).toBe(true);
    expect(isUnclearedDebit(debit({ accountType: 'SAVINGS' }))).toBe(true);
    expect(isUnclearedDebit(debit({ cleared: undefined }))).toBe(true);
  });

  it('not a cleared debit, a card sale, or a sale that is not Approved', () => {
    expect(isUnclearedDebit(debit({ cleared: true }))).toBe(false);
    expect(isUnclearedDebit(transaction({ accountType: 'VISA' }))).toBe(false);
    expect(isUnclearedDebit(returned)).toBe(false);
    expect(isUnclearedDebit(debit({ status: 'Voided' }))).toBe(false);
  });

  it('a held refund shows heldUntilCleared while Pending, not once it is sent or cancelled', () => {
    const held = {
      refundId: 'r1',
      transactionId: 't1',
      amountCents: 500,
      status: 'Pending' as const,
      date: '2026-05-11T00:00:00.000Z',
      heldUntilCleared: true as const,
    };
    expect(refundView(held)).toMatchObject({ status: 'Pending', heldUntilCleared: true });
    expect(refundView({ ...held, status: 'Completed' })).not.toHaveProperty('heldUntilCleared');
    expect(refundView({ ...held, status: 'Failed' })).not.toHaveProperty('heldUntilCleared');
  });
});

describe('a returned debit has nothing left to reverse', () => {
  it('availableRefundAmount is 0 and a void or a refund is refused saying it was returned', () => {
    expect(availableRefundCents(returned)).toBe(0);
    expect(returnedRefusal(returned, 'refund')).toBe(
      `transaction ${returned.transactionId} was returned by the bank (R01: Insufficient funds); nothing to refund`,
    );
    expect(returnedRefusal(returned, 'void')).toMatch(/was returned by the bank \(R01.*nothing to void$/);
    expect(returnedRefusal(debit(), 'refund')).toBeUndefined();
  });
});

describe('a processor that cannot cancel a submitted debit', () => {
  it('refuses the void of a debit that has not cleared (refund it: held), and no other', () => {
    expect(debitVoidRefusal(debit(), false)).toMatch(/cannot cancel once submitted; refund it instead/);
    expect(debitVoidRefusal(debit(), true)).toBeUndefined();
    expect(debitVoidRefusal(transaction({ accountType: 'VISA' }), false)).toBeUndefined();
  });
});
