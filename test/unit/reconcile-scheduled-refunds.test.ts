/**
 * The reconciliation's age rule for a refund that a group's void-or-refund scheduled inside the
 * void margin (issue 25, defect 4): it is due from its sale's cut-off on, so it is judged
 * `stale-pending` only once that is older than the stale bound, not from when it was recorded. A
 * refund held until its bank debit clears is due from the clearing on.
 */
import { compare, type ReconcileInput } from '#core/reconcile-compare';
import type { Refund } from '#domain/transactions';
import { TXN_ID, transaction } from '#support/fixtures/index';

const NOW = new Date('2026-05-10T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

const input = (refund: Refund): ReconcileInput => ({
  since: '2026-05-10T00:00:00.000Z',
  until: NOW.toISOString(),
  now: NOW,
  staleMinutes: 30,
  activity: [],
  sales: [],
  refunds: [refund],
  unanswered: [],
});

const pendingRefund = (over: Partial<Refund>): Refund => ({
  refundId: 'r-1',
  transactionId: TXN_ID,
  amountCents: 1999,
  status: 'Pending',
  date: minutesAgo(40),
  ...over,
});

test('a scheduled refund recorded 40 minutes ago whose cut-off passed 10 minutes ago is not stale yet', () => {
  expect(compare(input(pendingRefund({ sendAfter: minutesAgo(10) })))).toEqual([]);
});

test('a scheduled refund still Pending 31 minutes after its cut-off is stale-pending, dated from the cut-off', () => {
  expect(compare(input(pendingRefund({ sendAfter: minutesAgo(31) })))).toEqual([
    expect.objectContaining({
      kind: 'stale-pending',
      refundId: 'r-1',
      detail: `refund Pending since ${minutesAgo(31)}`,
    }),
  ]);
});

test('an ordinary Pending refund is judged from when it was recorded, as before', () => {
  expect(compare(input(pendingRefund({})))).toEqual([
    expect.objectContaining({ kind: 'stale-pending', detail: `refund Pending since ${minutesAgo(40)}` }),
  ]);
});

test('a refund held until its debit clears recorded 10 hours ago is not stale while the debit has not cleared', () => {
  const held = pendingRefund({ date: minutesAgo(600), heldUntilCleared: true });
  const debit = transaction({ transactionId: TXN_ID, accountType: 'CHECKING', cleared: false });
  expect(compare({ ...input(held), sales: [debit] }).filter((d) => d.kind === 'stale-pending')).toEqual([]);
});

test('a held refund still Pending 31 minutes after its debit cleared is stale-pending, dated from the clearing', () => {
  const held = pendingRefund({ date: minutesAgo(600), heldUntilCleared: true });
  const debit = transaction({
    transactionId: TXN_ID,
    accountType: 'CHECKING',
    cleared: true,
    clearedAt: minutesAgo(31),
  });
  expect(compare({ ...input(held), sales: [debit] }).filter((d) => d.kind === 'stale-pending')).toEqual([
    expect.objectContaining({ refundId: 'r-1', detail: `refund Pending since ${minutesAgo(31)}` }),
  ]);
});
