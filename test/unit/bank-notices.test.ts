/**
 * The rules of a bank debit's clearing and return (lambdas/domain/bank-notices.ts; DESIGN section
 * 6): when a notice applies, is held, is stale or is skipped; what a return records on the sale,
 * its payment's authResponse and attempt (`afterRefund` after a completed refund); which held
 * refunds it cancels (on the payment too), and that a held refund being sent holds it; what each category
 * leaves to the follow-up; a revoked method stays revoked.
 */
import { accountUpdated } from '#domain/account-updates';
import {
  bankNoticeDecision,
  bankNoticeEventType,
  cancelledRefundOutcome,
  clearedSale,
  debitReturn,
  methodAfterReturn,
  nsfAsDecline,
  seriesSuspension,
  SUSPEND_BATCH,
  paymentAfterNotice,
  refundsCancelledBy,
  returnedSale,
  returnFollowUp,
  returnFollowUps,
} from '#domain/bank-notices';
import { countOutcome, emptyTotals } from '#domain/processing';
import { returnSummaryDelta } from '#domain/summary-deltas';
import { attemptOf } from '#domain/groups';
import { renderEmail } from '#domain/notifications';
import type { Refund, Transaction } from '#domain/transactions';
import { answer, payment, savedChecking, transaction } from '#support/fixtures/index';

const NOW = new Date('2026-05-14T10:00:00.000Z');
const debit = (over: Partial<Transaction> = {}): Transaction =>
  transaction({ accountType: 'CHECKING', maskedAccountNumber: '********6789', cleared: false, ...over });
const refund = (over: Partial<Refund> = {}): Refund => ({
  refundId: 'r1',
  transactionId: debit().transactionId,
  amountCents: 500,
  status: 'Completed',
  date: '2026-05-11T00:00:00.000Z',
  ...over,
});
const sale = (txn: Transaction, refunds: Refund[] = []) => ({ transaction: txn, refunds });
const R01 = { code: 'R01', returnedAt: '2026-05-13T10:30:00.000Z' };

describe('when a bank notice applies', () => {
  it('a notice whose sale does not exist yet is held', () => {
    expect(bankNoticeDecision('returned', 1, undefined)).toMatchObject({ outcome: 'held' });
  });

  it('a notice whose sale is still Pending is held', () => {
    expect(bankNoticeDecision('cleared', 1, sale(debit({ status: 'Pending' })))).toMatchObject({
      outcome: 'held',
    });
  });

  it('an approved bank debit takes its clearing and its return', () => {
    expect(bankNoticeDecision('cleared', 1, sale(debit()))).toEqual({ outcome: 'apply' });
    expect(bankNoticeDecision('returned', 1, sale(debit()))).toEqual({ outcome: 'apply' });
  });

  it('a returned debit that cleared before is returned all the same (unauthorized, late)', () => {
    const cleared = clearedSale(debit(), '2026-05-12T10:30:00.000Z', 2);
    expect(bankNoticeDecision('returned', 3, sale(cleared))).toEqual({ outcome: 'apply' });
  });

  it('a late notice never moves a record back: a clearing after the return is stale', () => {
    const returned = returnedSale(debit(), debitReturn(R01, []), 3, []);
    expect(bankNoticeDecision('cleared', 4, sale(returned))).toMatchObject({ outcome: 'stale' });
  });

  it('a notice older than the last applied to its sale is stale', () => {
    const cleared = clearedSale(debit(), '2026-05-12T10:30:00.000Z', 5);
    expect(bankNoticeDecision('returned', 4, sale(cleared))).toMatchObject({ outcome: 'stale' });
  });

  it('a second clearing is stale', () => {
    const cleared = clearedSale(debit(), '2026-05-12T10:30:00.000Z', 2);
    expect(bankNoticeDecision('cleared', 3, sale(cleared))).toMatchObject({ outcome: 'stale' });
  });

  it('a voided or declined sale, or a card sale, has no debit to clear or return: skipped', () => {
    expect(bankNoticeDecision('returned', 1, sale(debit({ status: 'Voided' })))).toMatchObject({
      outcome: 'skipped',
    });
    expect(bankNoticeDecision('returned', 1, sale(debit({ status: 'Declined' })))).toMatchObject({
      outcome: 'skipped',
    });
    expect(bankNoticeDecision('cleared', 1, sale(transaction()))).toMatchObject({ outcome: 'skipped' });
  });

  it('a void under way, or a refund in flight (not held), holds a return until it is done', () => {
    expect(bankNoticeDecision('returned', 1, sale(debit({ voidingAt: NOW.toISOString() })))).toMatchObject({
      outcome: 'held',
    });
    expect(bankNoticeDecision('returned', 1, sale(debit(), [refund({ status: 'Pending' })]))).toMatchObject({
      outcome: 'held',
    });
    expect(
      bankNoticeDecision(
        'returned',
        1,
        sale(debit(), [refund({ status: 'Pending', heldUntilCleared: true })]),
      ),
    ).toEqual({ outcome: 'apply' });
  });

  it('a held refund of a debit that cleared is being sent (the clearing’s follow-up): it holds a return until it is done', () => {
    const sending = refund({ status: 'Pending', heldUntilCleared: true });
    expect(bankNoticeDecision('returned', 2, sale(debit({ cleared: true }), [sending]))).toMatchObject({
      outcome: 'held',
      reason: 'a refund of its sale is in flight',
    });
  });
});

describe('what a return records', () => {
  it('the sale is Returned with its code, Nacha reason and category, and the notice is its last', () => {
    const ret = debitReturn(R01, []);
    expect(ret).toEqual({
      code: 'R01',
      reason: 'Insufficient funds',
      category: 'nsf',
      returnedAt: R01.returnedAt,
    });
    expect(returnedSale(debit(), ret, 3, [])).toMatchObject({
      status: 'Returned',
      return: ret,
      noticeSeq: 3,
    });
  });

  it('a return after a completed refund is recorded afterRefund', () => {
    expect(debitReturn(R01, [refund()])).toMatchObject({ afterRefund: true });
    expect(debitReturn(R01, [refund({ status: 'Failed' })])).not.toHaveProperty('afterRefund');
  });

  it('a return cancels the refunds held until the debit cleared, saying why, and frees their amount', () => {
    const held = refund({ refundId: 'held', status: 'Pending', heldUntilCleared: true });
    const refunds = [refund(), held, refund({ refundId: 'f', status: 'Failed' })];
    expect(refundsCancelledBy(refunds)).toEqual([held]);
    const ret = debitReturn(R01, refunds);
    expect(cancelledRefundOutcome(ret)).toEqual({
      status: 'Failed',
      responseCode: 'R01',
      responseMessage: 'Not sent: the debit was returned (R01, Insufficient funds) before it cleared',
    });
    const after = returnedSale(debit({ refundedCents: 1000, refundCount: 2 }), ret, 1, [held]);
    expect(after).toMatchObject({ refundedCents: 500, refundCount: 1 });
  });

  it('the payment its sale charged: its authResponse and that attempt become Returned; a later answer stays', () => {
    const txn = debit({ transactionId: 't1', paymentId: 'p1', paymentGroupId: 'g1' });
    const auth = { ...answer('Approved', 19.99, 19.99), transactionId: 't1' };
    const paid = payment({ authResponse: auth, attempts: [attemptOf(1, auth)] });
    const ret = debitReturn(R01, []);
    const after = paymentAfterNotice(paid, returnedSale(txn, ret, 1, []), NOW)!;
    expect(after.authResponse).toMatchObject({ status: 'Returned', return: ret, transactionId: 't1' });
    expect(after.attempts).toEqual([{ ...attemptOf(1, auth), status: 'Returned', return: ret }]);
    expect(after.lastUpdated).toBe(NOW.toISOString());

    // The returned sale is an earlier attempt: the retry's answer stays the payment's.
    const retry = { ...answer('Approved', 19.99, 19.99), transactionId: 't2' };
    const retried = payment({ authResponse: retry, attempts: [attemptOf(1, auth), attemptOf(2, retry)] });
    const later = paymentAfterNotice(retried, returnedSale(txn, ret, 1, []), NOW)!;
    expect(later.authResponse).toBe(retry);
    expect(later.attempts!.map((a) => a.status)).toEqual(['Returned', 'Approved']);

    // A payment that shows nothing of the sale does not change.
    expect(paymentAfterNotice(payment(), returnedSale(txn, ret, 1, []), NOW)).toBeUndefined();
  });

  it('a return after a completed refund: afterRefund on the payment’s authResponse and attempt too', () => {
    const txn = debit({ transactionId: 't1', paymentId: 'p1', paymentGroupId: 'g1' });
    const auth = { ...answer('Approved', 19.99, 19.99), transactionId: 't1' };
    const paid = payment({ authResponse: auth, attempts: [attemptOf(1, auth)] });
    const ret = debitReturn(R01, [refund()]);
    const after = paymentAfterNotice(paid, returnedSale(txn, ret, 1, []), NOW)!;
    expect(after.authResponse!.return).toMatchObject({ code: 'R01', afterRefund: true });
    expect(after.attempts![0]!.return).toMatchObject({ code: 'R01', afterRefund: true });
  });

  it('a held refund of a scheduled payment cancelled by the return: Failed among its reversals, no longer held', () => {
    const txn = debit({ transactionId: 't1', paymentId: 'p1', paymentGroupId: 'g1' });
    const auth = { ...answer('Approved', 19.99, 19.99), transactionId: 't1' };
    const held = { type: 'Refund' as const, transactionId: 'held', status: 'Pending' as const };
    const pending = { ...held, amount: 19.99, date: NOW.toISOString(), heldUntilCleared: true as const };
    const other = { ...pending, transactionId: 'other' };
    const paid = payment({ authResponse: auth, voidOrRefundResponses: [pending, other] });
    const ret = debitReturn(R01, []);
    const cancelled = { ...refund({ refundId: 'held' }), ...cancelledRefundOutcome(ret) };
    const after = paymentAfterNotice(paid, returnedSale(txn, ret, 1, [cancelled]), NOW, [cancelled])!;
    expect(after.voidOrRefundResponses).toEqual([
      {
        type: 'Refund',
        transactionId: 'held',
        status: 'Failed',
        amount: 19.99,
        date: NOW.toISOString(),
        responseCode: 'R01',
        responseMessage: 'Not sent: the debit was returned (R01, Insufficient funds) before it cleared',
      },
      other,
    ]);
  });

  it('a clearing sets cleared and clearedAt on the sale and on its payment’s authResponse', () => {
    const txn = debit({ transactionId: 't1', paymentId: 'p1' });
    const next = clearedSale(txn, '2026-05-12T10:30:00.000Z', 2);
    expect(next).toMatchObject({ cleared: true, clearedAt: '2026-05-12T10:30:00.000Z', noticeSeq: 2 });
    const auth = { ...answer('Approved', 19.99, 19.99), transactionId: 't1' };
    const after = paymentAfterNotice(
      payment({ authResponse: auth, attempts: [attemptOf(1, auth)] }),
      next,
      NOW,
    )!;
    expect(after.authResponse).toMatchObject({
      status: 'Approved',
      cleared: true,
      clearedAt: next.clearedAt,
    });
    expect(after.attempts![0]!.status).toBe('Approved');
  });

  it('the events: payment.* for a scheduled payment’s sale, transaction.* for a sale of the API', () => {
    expect(bankNoticeEventType('cleared', true)).toBe('payment.cleared');
    expect(bankNoticeEventType('returned', true)).toBe('payment.returned');
    expect(bankNoticeEventType('cleared', false)).toBe('transaction.cleared');
    expect(bankNoticeEventType('returned', false)).toBe('transaction.returned');
  });
});

describe('what each return category leaves to the follow-up', () => {
  const txn = debit({ payorId: 'payor1', savedPaymentMethodId: 'method1' });
  it.each([
    ['R02', 'close'],
    ['R03', 'close'],
    ['R04', 'close'],
    ['R05', 'revoke'],
    ['R07', 'revoke'],
    ['R10', 'revoke'],
    ['R29', 'revoke'],
  ])('%s: the method is %sd', (code, action) => {
    expect(returnFollowUp(txn, debitReturn({ code, returnedAt: NOW.toISOString() }, []))).toEqual({
      kind: 'method',
      action,
      merchantId: txn.merchantId,
      payorId: 'payor1',
      savedPaymentMethodId: 'method1',
      code,
      transactionId: txn.transactionId,
    });
  });

  it.each(['R01', 'R09', 'R08', 'R16'])('%s (nsf or other) leaves the method as it is', (code) => {
    expect(returnFollowUp(txn, debitReturn({ code, returnedAt: NOW.toISOString() }, []))).toBeUndefined();
  });
});

describe('an nsf return counts as a 51 decline for the retry rules', () => {
  it('a scheduled payment’s debit returned R01 or R09 is retried (the follow-up), an API sale’s is not', () => {
    const paid = debit({ paymentId: 'p1', paymentGroupId: 'g1' });
    for (const code of ['R01', 'R09'])
      expect(returnFollowUp(paid, debitReturn({ code, returnedAt: NOW.toISOString() }, []))).toEqual({
        kind: 'retry',
        merchantId: paid.merchantId,
        paymentGroupId: 'g1',
        paymentId: 'p1',
        transactionId: paid.transactionId,
      });
    expect(returnFollowUp(debit(), debitReturn(R01, []))).toBeUndefined();
  });

  it('as the decision reads it: Declined 51, category 2, answered when the debit was returned', () => {
    const auth = { ...answer('Approved', 19.99, 19.99), transactionId: 't1' };
    expect(nsfAsDecline(auth, R01.returnedAt)).toMatchObject({
      status: 'Declined',
      responseCode: '51',
      declineCategory: '2',
      processedAt: R01.returnedAt,
      transactionId: 't1',
    });
  });
});

describe('the method after a return', () => {
  it('administrative closes it, unauthorized revokes it, each counting a revision and an event', () => {
    const method = savedChecking({ revision: 1, eventSeq: 2 });
    expect(methodAfterReturn(method, 'close', NOW)).toMatchObject({
      status: 'closed',
      revision: 2,
      eventSeq: 3,
    });
    expect(methodAfterReturn(method, 'revoke', NOW)).toMatchObject({
      status: 'revoked',
      revision: 2,
      eventSeq: 3,
    });
  });

  it('a repeat changes nothing, and a revoked method is never closed back', () => {
    expect(methodAfterReturn(savedChecking({ status: 'closed' }), 'close', NOW)).toBeUndefined();
    expect(methodAfterReturn(savedChecking({ status: 'revoked' }), 'revoke', NOW)).toBeUndefined();
    expect(methodAfterReturn(savedChecking({ status: 'revoked' }), 'close', NOW)).toBeUndefined();
    expect(methodAfterReturn(savedChecking({ status: 'closed' }), 'revoke', NOW)).toMatchObject({
      status: 'revoked',
    });
  });

  it('no account update undoes a revocation', () => {
    const revoked = savedChecking({ status: 'revoked' });
    expect(
      accountUpdated(revoked, { kind: 'new_expiry', expiryMonth: 1, expiryYear: 2031 }, NOW).status,
    ).toBe('revoked');
  });

  it('the payor’s e-mail says why: a return closed the account, or revoked the authorization', () => {
    const mail = (status: 'closed' | 'revoked', returnCode: string) =>
      renderEmail({
        outboxId: 'x',
        kind: 'method-unusable',
        recipient: 'a@example.com',
        status: 'pending',
        attempts: 0,
        createdAt: NOW.toISOString(),
        data: {
          merchantName: 'Acme',
          maskedAccountNumber: '****6789',
          accountType: 'CHECKING',
          status,
          returnCode,
        },
      }).text;
    expect(mail('closed', 'R02')).toContain('Your bank returned a debit (R02)');
    expect(mail('revoked', 'R10')).toContain('not authorized (R10)');
  });
});

describe('a revocation suspends the method’s series payments', () => {
  const series = { seriesId: 's1', merchantId: 'm', revision: 4, eventSeq: 2, status: 'active' } as never;
  const pay = (index: number, profileId: string, status?: 'suspended') => ({
    index,
    profileId,
    amountCents: 100,
    sendEmailReceipt: false,
    sendPaymentScheduledNotification: false,
    ...(status && { status }),
  });

  it('only its payments not suspended yet, in one write at the next revision with one more event', () => {
    const change = seriesSuspension(
      series,
      [pay(0, 'p/revoked'), pay(1, 'p/other'), pay(2, 'p/revoked', 'suspended'), pay(3, 'p/revoked')],
      'revoked',
      NOW,
    )!;
    expect(change.suspend.map((p) => p.index)).toEqual([0, 3]);
    expect(change.next).toMatchObject({
      revision: 5,
      eventSeq: 3,
      lastUpdated: NOW.toISOString(),
      status: 'active',
    });
  });

  it('none left: nothing to write (a repeat changes nothing)', () => {
    expect(
      seriesSuspension(series, [pay(0, 'p/revoked', 'suspended'), pay(1, 'p/other')], 'revoked', NOW),
    ).toBeUndefined();
  });

  it('a write holds at most SUSPEND_BATCH payments (a transaction’s room); the rest go in the next', () => {
    const many = Array.from({ length: SUSPEND_BATCH + 5 }, (_, i) => pay(i, 'p/revoked'));
    expect(seriesSuspension(series, many, 'revoked', NOW)!.suspend).toHaveLength(SUSPEND_BATCH);
  });
});

describe('a return moves its group’s processingSummary once, and e-mails the payor', () => {
  const auth = { ...answer('Approved', 20, 20), transactionId: 't1' };
  const returnedAuth = { ...auth, status: 'Returned' as const, return: { ...debitReturn(R01, []) } };

  it('every return leaves its summary step (a scheduled payment’s) and the payor’s e-mail, after the category’s step', () => {
    const paid = debit({ paymentId: 'p1', paymentGroupId: 'g1' });
    const ids = { merchantId: paid.merchantId, transactionId: paid.transactionId };
    expect(returnFollowUps(paid, debitReturn(R01, [])).map((f) => f.kind)).toEqual([
      'retry',
      'summary',
      'return-email',
    ]);
    expect(returnFollowUps(paid, debitReturn({ ...R01, code: 'R08' }, []))).toEqual([
      { kind: 'summary', ...ids, paymentGroupId: 'g1', paymentId: 'p1' },
      { kind: 'return-email', ...ids, payorId: paid.payorId },
    ]);
    // A sale of the transactions API has no group: its payor's e-mail only (and its method's step).
    expect(returnFollowUps(debit(), debitReturn({ ...R01, code: 'R02' }, [])).map((f) => f.kind)).toEqual([
      'method',
      'return-email',
    ]);
  });

  it('the summary counts a returned payment as approved until its move, then as returned', () => {
    const p = payment({ amountCents: 2_500, authResponse: returnedAuth });
    const before = emptyTotals();
    countOutcome(before, p);
    expect(before).toMatchObject({ approved: 1, partial: 1, approvedCents: 2_000, returned: 0, declined: 0 });
    const after = emptyTotals();
    countOutcome(after, { ...p, returnCounted: 't1' });
    expect(after).toMatchObject({
      approved: 0,
      partial: 0,
      approvedCents: 0,
      returned: 1,
      returnedCents: 2_000,
    });
    // Counted for another sale (an earlier return of the payment, retried since): not this one.
    const other = emptyTotals();
    countOutcome(other, { ...p, returnCounted: 't0' });
    expect(other).toMatchObject({ approved: 1, returned: 0 });
  });

  it('the move: approved (and partial, recovered) down by what it counted, returned up', () => {
    const p = payment({ amountCents: 2_500, authResponse: returnedAuth });
    expect(returnSummaryDelta(p)).toEqual({
      approved: -1,
      partial: -1,
      approvedCents: -2_000,
      returned: 1,
      returnedCents: 2_000,
    });
    const recovered = payment({
      amountCents: 2_000,
      authResponse: returnedAuth,
      retry: { status: 'succeeded' } as never,
    });
    expect(returnSummaryDelta(recovered)).toEqual({
      approved: -1,
      approvedCents: -2_000,
      recovered: -1,
      recoveredCents: -2_000,
      returned: 1,
      returnedCents: 2_000,
    });
    expect(returnSummaryDelta(payment({ authResponse: auth }))).toEqual({});
  });

  it('the payor’s e-mail says what was returned, why, and what follows by its category', () => {
    const mail = (
      code: string,
      reason: string,
      category: 'nsf' | 'administrative' | 'unauthorized' | 'other',
    ) =>
      renderEmail({
        outboxId: 'return:t1',
        kind: 'debit-returned',
        recipient: 'a@example.com',
        status: 'pending',
        attempts: 0,
        createdAt: NOW.toISOString(),
        data: {
          merchantName: 'Acme <School>',
          amountCents: 2_000,
          maskedAccountNumber: '********6789',
          accountType: 'CHECKING',
          transactionId: 't1',
          date: '2026-05-11',
          code,
          reason,
          category,
          orderId: 'INV-7',
        },
      });
    const nsf = mail('R01', 'Insufficient funds', 'nsf');
    expect(nsf.subject).toBe('Acme <School>: your payment of 20.00 was returned by your bank');
    expect(nsf.text).toContain('R01: Insufficient funds');
    expect(nsf.text).toContain('may try the payment again');
    expect(nsf.text).toContain('INV-7');
    expect(nsf.html).toContain('Acme &lt;School&gt;');
    expect(mail('R02', 'Account closed', 'administrative').text).toContain('can no longer debit it');
    expect(mail('R10', 'Not authorized', 'unauthorized').text).toContain('will not debit this account again');
    expect(mail('R16', 'Account frozen', 'other').text).toContain('contact Acme <School> to arrange');
  });
});
