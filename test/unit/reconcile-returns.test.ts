/**
 * Reconciliation counts a bank debit's return as the processor reports it (DESIGN section 6): the
 * debit's sale stays a charge the processor approved (a Returned record is no status mismatch), and
 * the processor's return line is matched to the record's return, by key, code and amount.
 */
import { compare, reportedReturns, type ReconcileInput } from '#core/reconcile-compare';
import type { ProcessorActivity } from '#processor/processor';
import { MID, transaction } from '#support/fixtures/index';

const PROCESSED_AT = '2026-05-10T14:37:12.345Z';
const RETURNED_AT = '2026-05-10T20:00:00.000Z';

const input = (over: Partial<ReconcileInput>): ReconcileInput => ({
  since: '2026-05-10T00:00:00.000Z',
  until: '2026-05-11T00:00:00.000Z',
  now: new Date('2026-05-11T00:05:00.000Z'),
  staleMinutes: 30,
  activity: [],
  sales: [],
  refunds: [],
  unanswered: [],
  ...over,
});

const debit = transaction({ processedAt: PROCESSED_AT, accountType: 'CHECKING' });
const key = `sale:${debit.transactionId}`;
const line = (kind: 'sale' | 'return', over: Partial<ProcessorActivity> = {}): ProcessorActivity => ({
  kind,
  idempotencyKey: key,
  merchantId: MID,
  processorTransactionId: 'sbx_1',
  approved: true,
  amountCents: debit.approvedCents,
  responseCode: kind === 'sale' ? '00' : 'R01',
  at: kind === 'sale' ? PROCESSED_AT : RETURNED_AT,
  ...over,
});
const returnedDebit = (code = 'R01') => ({
  ...debit,
  status: 'Returned' as const,
  return: { code, reason: 'Insufficient funds', category: 'nsf' as const, returnedAt: RETURNED_AT },
});

test('a returned debit the processor reports returned: no difference, counted as reported', () => {
  const activity = [line('sale'), line('return')];
  expect(compare(input({ activity, sales: [returnedDebit()] }))).toEqual([]);
  expect(reportedReturns(input({ activity }))).toEqual({ count: 1, cents: debit.approvedCents });
});

test('defect: a Returned record is reported as a status mismatch against its approved sale', () => {
  expect(
    compare(input({ activity: [line('sale'), line('return')], sales: [returnedDebit()] })),
  ).not.toContainEqual(expect.objectContaining({ kind: 'status-mismatch' }));
});

test('a return the processor reports that the record does not show (a notice not applied yet): return-not-recorded', () => {
  expect(compare(input({ activity: [line('sale'), line('return')], sales: [debit] }))).toEqual([
    expect.objectContaining({
      kind: 'return-not-recorded',
      transactionId: debit.transactionId,
      processorCents: debit.approvedCents,
      detail: 'the processor returned the debit (R01); the record is Approved',
    }),
  ]);
});

test('defect: a return the processor reported minutes ago, its notice still on its way, was return-not-recorded (unhealed: the sweep applies no notices); it is judged once older than the stale bound', () => {
  const recent = new Date(Date.parse('2026-05-11T00:05:00.000Z') - 10 * 60_000).toISOString();
  expect(
    compare(input({ activity: [line('sale'), line('return', { at: recent })], sales: [debit] })),
  ).toEqual([]);
  const stale = new Date(Date.parse('2026-05-11T00:05:00.000Z') - 31 * 60_000).toISOString();
  expect(compare(input({ activity: [line('sale'), line('return', { at: stale })], sales: [debit] }))).toEqual(
    [expect.objectContaining({ kind: 'return-not-recorded', transactionId: debit.transactionId })],
  );
  // The run before left its last stale time's returns in flight: this run judges them; a return
  // earlier than that was the run before's to judge.
  const returnedAt = (at: string) =>
    compare(input({ activity: [line('sale'), line('return', { at })], sales: [debit] }));
  expect(returnedAt('2026-05-09T23:40:00.000Z')).toEqual([
    expect.objectContaining({ kind: 'return-not-recorded', transactionId: debit.transactionId }),
  ]);
  expect(returnedAt('2026-05-09T23:20:00.000Z')).toEqual([]);
});

test('a Returned record the processor reports no return of: return-unreported', () => {
  expect(compare(input({ activity: [line('sale')], sales: [returnedDebit()] }))).toEqual([
    expect.objectContaining({ kind: 'return-unreported', transactionId: debit.transactionId }),
  ]);
});

test('a return code or amount that differs is a status or amount mismatch', () => {
  expect(compare(input({ activity: [line('sale'), line('return')], sales: [returnedDebit('R02')] }))).toEqual(
    [expect.objectContaining({ kind: 'status-mismatch' })],
  );
  const less = line('return', { amountCents: debit.approvedCents - 1 });
  expect(compare(input({ activity: [line('sale'), less], sales: [returnedDebit()] }))).toEqual([
    expect.objectContaining({ kind: 'amount-mismatch', detail: 'returned amount differs' }),
  ]);
});

test('returns outside the window are not counted', () => {
  const late = line('return', { at: '2026-05-11T00:00:00.000Z' });
  expect(reportedReturns(input({ activity: [line('sale'), late] }))).toEqual({ count: 0, cents: 0 });
});
