/**
 * Reconciliation of a scheduled payment's retries: each attempt is its own sale under its own
 * processor key (`payment:<paymentId>:<attempt>`), and a retry's approved sale is matched to the
 * processor's charge under that key.
 */
import { compare, type ReconcileInput } from '#core/reconcile-compare';
import type { ProcessorActivity } from '#processor/processor';
import { attemptTransactionId } from '#shared/ids';
import { MID, transaction } from '#support/fixtures/index';

const PAYMENT_ID = '01890a5d-ac96-774b-bcce-b302099a8081';
const PROCESSED_AT = '2026-05-10T14:37:12.345Z';

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

const charge = (idempotencyKey: string): ProcessorActivity => ({
  kind: 'sale',
  idempotencyKey,
  merchantId: MID,
  processorTransactionId: 'sbx_1',
  approved: true,
  amountCents: 1999,
  responseCode: '00',
  at: PROCESSED_AT,
});

const retrySale = (attempt: number) =>
  transaction({
    transactionId: attemptTransactionId(PAYMENT_ID, attempt),
    paymentId: PAYMENT_ID,
    ...(attempt > 1 && { attempt }),
    processedAt: PROCESSED_AT,
  });

test('a first attempt charged under payment:<paymentId> matches its sale', () => {
  expect(compare(input({ activity: [charge(`payment:${PAYMENT_ID}`)], sales: [retrySale(1)] }))).toEqual([]);
});

test('defect: a retry charged under payment:<paymentId>:<attempt> is reported as a record without a charge', () => {
  expect(compare(input({ activity: [charge(`payment:${PAYMENT_ID}:2`)], sales: [retrySale(2)] }))).toEqual(
    [],
  );
});

test('a retry whose charge the processor does not have is a record without a charge', () => {
  expect(compare(input({ sales: [retrySale(2)] }))).toEqual([
    expect.objectContaining({
      kind: 'record-without-charge',
      transactionId: attemptTransactionId(PAYMENT_ID, 2),
    }),
  ]);
});
