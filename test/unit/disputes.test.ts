/**
 * The rules of card disputes (lambdas/domain/disputes.ts; DESIGN section 6 "Card disputes"): when
 * a dispute notice applies, is held, is stale, is skipped or takes the return path; what the
 * dispute is after it and which events announce it; which reasons revoke the card's method; a
 * dispute open or lost leaves nothing to refund; the sale and the payment show it.
 */
import {
  disputeAfter,
  disputeDecision,
  disputedRefusal,
  disputeEvents,
  disputeEventTypes,
  disputeFollowUps,
  disputeIdOf,
  disputeView,
  showsAsLatest,
  type Dispute,
} from '#domain/disputes';
import { paymentView } from '#domain/groups';
import { countOutcome, emptyTotals } from '#domain/processing';
import { disputeSummaryDelta } from '#domain/summary-deltas';
import { renderEmail } from '#domain/notifications';
import { availableRefundCents, disputedNow, transactionView, type Transaction } from '#domain/transactions';
import { answer, payment, transaction } from '#support/fixtures/index';

const NOW = new Date('2026-05-14T10:00:00.000Z');
const sale = (over: Partial<Transaction> = {}) => transaction(over);
const notice = (
  over: Partial<Parameters<typeof disputeAfter>[0]> = {},
): Parameters<typeof disputeAfter>[0] => ({
  kind: 'dispute_opened',
  disputeId: 'dp_1',
  sequence: 1,
  occurredAt: '2026-05-12T15:00:00.000Z',
  status: 'needs_response',
  reason: 'fraudulent',
  amountCents: 1999,
  evidenceDueBy: '2026-05-19T15:00:00.000Z',
  ...over,
});
const opened = (): Dispute => disputeAfter(notice(), sale(), undefined, 1);

describe('disputeDecision', () => {
  it('holds a notice whose sale is not recorded yet, or still Pending', () => {
    expect(disputeDecision(notice(), undefined, undefined)).toMatchObject({ outcome: 'held' });
    expect(disputeDecision(notice(), sale({ status: 'Pending' }), undefined)).toMatchObject({
      outcome: 'held',
    });
  });

  it('applies to an approved card sale, and to its open dispute with a later notice', () => {
    expect(disputeDecision(notice(), sale(), undefined)).toEqual({ outcome: 'apply' });
    expect(disputeDecision(notice({ kind: 'dispute_updated', sequence: 2 }), sale(), opened())).toEqual({
      outcome: 'apply',
    });
  });

  it('a late notice (not past the last applied) never moves a dispute back: stale', () => {
    const later = { ...opened(), noticeSeq: 3 };
    expect(disputeDecision(notice({ sequence: 3 }), sale(), later)).toMatchObject({ outcome: 'stale' });
    expect(disputeDecision(notice({ sequence: 2 }), sale(), later)).toMatchObject({ outcome: 'stale' });
  });

  it('a closed dispute is final: any notice after it is stale', () => {
    const won = { ...opened(), status: 'won' as const };
    expect(disputeDecision(notice({ kind: 'dispute_updated', sequence: 5 }), sale(), won)).toMatchObject({
      outcome: 'stale',
    });
  });

  it('a declined or voided sale has no charge to dispute: skipped', () => {
    expect(disputeDecision(notice(), sale({ status: 'Declined' }), undefined)).toMatchObject({
      outcome: 'skipped',
    });
    expect(disputeDecision(notice(), sale({ status: 'Voided' }), undefined)).toMatchObject({
      outcome: 'skipped',
    });
  });

  it("a bank debit's dispute is its unauthorized return, by its opening notice only", () => {
    const debit = sale({ accountType: 'CHECKING' });
    expect(disputeDecision(notice(), debit, undefined)).toEqual({ outcome: 'return' });
    expect(
      disputeDecision(notice({ kind: 'dispute_closed', status: 'lost' }), debit, undefined),
    ).toMatchObject({
      outcome: 'stale',
    });
  });
});

describe('disputeAfter and its events', () => {
  it('a new dispute: opened at the notice, its id the same for every notice of the processor’s dispute', () => {
    const d = opened();
    expect(d).toMatchObject({
      disputeId: disputeIdOf(sale().merchantId, 'dp_1'),
      transactionId: sale().transactionId,
      status: 'needs_response',
      openedAt: '2026-05-12T15:00:00.000Z',
      noticeSeq: 1,
      eventSeq: 1,
    });
    expect(d.closedAt).toBeUndefined();
    expect(disputeIdOf(sale().merchantId, 'dp_1')).toBe(d.disputeId);
    expect(disputeIdOf('32350000002', 'dp_1')).not.toBe(d.disputeId);
  });

  it('closed: closedAt set, no evidence due, openedAt kept; events counted on', () => {
    const closed = disputeAfter(
      notice({ kind: 'dispute_closed', sequence: 2, status: 'lost', occurredAt: '2026-05-13T15:00:00.000Z' }),
      sale(),
      opened(),
      1,
    );
    expect(closed).toMatchObject({ status: 'lost', openedAt: '2026-05-12T15:00:00.000Z', eventSeq: 2 });
    expect(closed.closedAt).toBe('2026-05-13T15:00:00.000Z');
    expect(closed.evidenceDueBy).toBeUndefined();
  });

  it('created (and closed, when its first notice says so), updated, or closed', () => {
    expect(disputeEventTypes(undefined, notice())).toEqual(['dispute.created']);
    expect(disputeEventTypes(undefined, notice({ status: 'won' }))).toEqual([
      'dispute.created',
      'dispute.closed',
    ]);
    expect(disputeEventTypes(opened(), notice({ status: 'under_review' }))).toEqual(['dispute.updated']);
    expect(disputeEventTypes(opened(), notice({ status: 'lost' }))).toEqual(['dispute.closed']);
  });

  it('defect: a later notice that changed nothing the dispute shows announced dispute.updated (the same data again); it announces nothing', () => {
    const later = { kind: 'dispute_updated', sequence: 2 } as const;
    expect(disputeEventTypes(opened(), notice(later))).toEqual([]);
    for (const change of [
      { status: 'under_review' },
      { reason: 'general' },
      { amountCents: 1000 },
      { evidenceDueBy: '2026-05-20T15:00:00.000Z' },
    ] as const)
      expect(disputeEventTypes(opened(), notice({ ...later, ...change }))).toEqual(['dispute.updated']);
  });

  it('each event is the dispute as after, numbered from its count before', () => {
    const after = disputeAfter(notice({ status: 'won' }), sale(), undefined, 2);
    const events = disputeEvents(['dispute.created', 'dispute.closed'], after, NOW);
    expect(events.map((e) => [e.type, e.sequence, e.objectId])).toEqual([
      ['dispute.created', 1, after.disputeId],
      ['dispute.closed', 2, after.disputeId],
    ]);
    expect(events[1]!.data).toEqual(disputeView(after));
  });
});

describe('the card method', () => {
  it.each(['fraudulent', 'unrecognized', 'subscription_canceled'])('%s revokes it, once', (reason) => {
    const d = disputeAfter(notice({ reason }), sale(), undefined, 1);
    expect(disputeFollowUps(sale(), undefined, d)).toMatchObject([
      {
        kind: 'method',
        action: 'revoke',
        savedPaymentMethodId: sale().savedPaymentMethodId,
        code: reason,
      },
    ]);
    // Its next notice with the same reason leaves nothing more.
    expect(disputeFollowUps(sale(), d, { ...d, status: 'lost' })).toEqual([]);
  });

  it.each(['product_not_received', 'duplicate', 'general'])('%s only flags it', (reason) => {
    const d = disputeAfter(notice({ reason }), sale(), undefined, 1);
    expect(disputeFollowUps(sale(), undefined, d)).toEqual([]);
  });

  it("the payor's e-mail says the card was disputed, not that a bank returned a debit", () => {
    const email = renderEmail({
      outboxId: 'x',
      kind: 'method-unusable',
      recipient: 'a@example.com',
      status: 'pending',
      attempts: 0,
      createdAt: NOW.toISOString(),
      data: {
        merchantName: 'Acme',
        maskedAccountNumber: '************1111',
        accountType: 'VISA',
        status: 'revoked',
        returnCode: 'fraudulent',
      },
    } as never);
    expect(email.text).toContain('You disputed a charge to this card (fraudulent)');
  });
});

describe('refunds of a disputed sale', () => {
  const shown = (status: Dispute['status']) => sale({ dispute: disputeView({ ...opened(), status }) });

  it.each(['inquiry', 'needs_response', 'under_review', 'lost'] as const)(
    'a %s dispute leaves nothing to refund (availableRefundAmount 0), and the refusal names it',
    (status) => {
      const t = shown(status);
      expect(disputedNow(t)).toBe(true);
      expect(availableRefundCents(t)).toBe(0);
      expect(transactionView(t, [], NOW).availableRefundAmount).toBe(0);
      expect(disputedRefusal(t, 'refunded')).toContain(`dispute ${t.dispute!.disputeId}`);
    },
  );

  it('a won dispute leaves the sale as before', () => {
    const t = shown('won');
    expect(disputedNow(t)).toBe(false);
    expect(availableRefundCents(t)).toBe(1999);
  });

  it('the sale and the payment show their latest dispute', () => {
    const view = disputeView(opened());
    expect(transactionView(sale({ dispute: view }), [], NOW).dispute).toEqual(view);
    expect(paymentView(payment({ dispute: view })).dispute).toEqual(view);
    expect(transactionView(sale(), [], NOW)).not.toHaveProperty('dispute');
    // A later dispute replaces the one shown; an older one does not.
    const older = { ...opened(), disputeId: 'other', openedAt: '2026-05-01T00:00:00.000Z' };
    expect(showsAsLatest(view, older)).toBe(false);
    expect(showsAsLatest(view, opened())).toBe(true);
    expect(showsAsLatest(undefined, older)).toBe(true);
  });
});

describe('the group’s processingSummary counts a dispute once', () => {
  const shownOn = { paymentGroupId: 'g1', paymentId: 'p1' };
  const disputedPayment = (over: Parameters<typeof payment>[0] = {}) =>
    payment({
      authResponse: { ...answer('Approved', 19.99, 19.99), transactionId: sale().transactionId },
      dispute: disputeView(opened()),
      ...over,
    });

  it('a dispute shown on a scheduled payment leaves its move into the summary until the payment’s mark names it', () => {
    const d = opened();
    const reasonOnly = { ...d, reason: 'general' };
    expect(disputeFollowUps(sale(), undefined, reasonOnly, shownOn)).toEqual([
      { kind: 'dispute-summary', merchantId: sale().merchantId, ...shownOn, disputeId: d.disputeId },
    ]);
    // Fraud: the method's revocation first, then the move.
    expect(disputeFollowUps(sale(), undefined, d, shownOn).map((f) => f.kind)).toEqual([
      'method',
      'dispute-summary',
    ]);
    // Counted before (its next notices), or no payment shows it (a sale of the transactions API): no move.
    expect(
      disputeFollowUps(
        sale(),
        d,
        { ...reasonOnly, status: 'lost' },
        { ...shownOn, disputeCounted: d.disputeId },
      ),
    ).toEqual([]);
    expect(disputeFollowUps(sale(), undefined, reasonOnly)).toEqual([]);
  });

  it('counts disputed (and approved still) once its mark names the dispute; the move is disputed and its sum up, nothing else', () => {
    const p = disputedPayment();
    const before = emptyTotals();
    countOutcome(before, p);
    expect(before).toMatchObject({ approved: 1, approvedCents: 1999, disputed: 0, disputedCents: 0 });
    const after = emptyTotals();
    countOutcome(after, { ...p, disputeCounted: opened().disputeId });
    expect(after).toMatchObject({ approved: 1, approvedCents: 1999, disputed: 1, disputedCents: 1999 });
    expect(disputeSummaryDelta(p)).toEqual({ disputed: 1, disputedCents: 1999 });
    // The payment's latest sale is not the disputed one: nothing to move.
    const other = disputedPayment({
      authResponse: { ...answer('Approved', 19.99, 19.99), transactionId: 'later' },
    });
    expect(disputeSummaryDelta(other)).toEqual({});
  });

  it('a run recounting its group counts a dispute at the amount its move counted, not at its amount changed since; the report at its amount now', () => {
    // Moved at $19.99; the processor disputes $15 of it since.
    const p = disputedPayment({ disputeCounted: opened().disputeId, disputeCountedCents: 1999 });
    const changed = { ...p, dispute: { ...p.dispute!, amount: 15 } };
    const summary = emptyTotals();
    countOutcome(summary, changed);
    expect(summary).toMatchObject({ disputed: 1, disputedCents: 1999 });
    const report = emptyTotals();
    countOutcome(report, changed, undefined, true);
    expect(report).toMatchObject({ disputed: 1, disputedCents: 1500 });
  });
});
