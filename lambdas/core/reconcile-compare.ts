/**
 * The comparison behind reconciliation: the processor's activity against the service's sales,
 * refunds and scheduled payments, as a list of differences by kind. Pure: the reads are done by
 * the caller (core/reconcile.ts), so each rule is tested on constructed inputs.
 *
 * The processor's calls are matched to the service's records by their processor keys
 * (domain/processor-keys.ts). A bank debit's return is counted as the processor reports it: its
 * sale stays a charge the processor approved (a Returned record is no status mismatch), and the
 * return itself is matched to the record's: reported but not recorded (a notice not applied yet),
 * or recorded but not reported.
 */
import type { Payment } from '#domain/groups';
import { processorKeys, refundIdOfKey, saleIdOfKey } from '#domain/processor-keys';
import type { Refund, Transaction } from '#domain/transactions';
import type { ProcessorActivity } from '#processor/processor';

export const DIFFERENCE_KINDS = [
  'charge-without-record',
  'record-without-charge',
  'amount-mismatch',
  'status-mismatch',
  'reversal-missing',
  'stale-pending',
  'unanswered-payment',
  'return-not-recorded',
  'return-unreported',
] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface Difference {
  kind: DifferenceKind;
  merchantId: string;
  transactionId?: string;
  refundId?: string;
  paymentId?: string;
  paymentGroupId?: string;
  /** The processor's key and id, when the processor has the call. */
  processorKey?: string;
  processorTransactionId?: string;
  /** Cents as the service records them and as the processor moved them. */
  recordCents?: number;
  processorCents?: number;
  detail: string;
  /** Gone after the sweeper ran (set by core/reconcile.ts). */
  healed: boolean;
}

export interface ReconcileInput {
  /** The reported window: differences are reported for records and calls in [since, until). */
  since: string;
  until: string;
  now: Date;
  staleMinutes: number;
  /** The processor's calls, from somewhat before `since` to now (a record's call may straddle it). */
  activity: ProcessorActivity[];
  /**
   * Sales: those written in the window and the day before it (a Pending sale or a reserved void
   * the run before left in flight), plus any the activity or a refund names.
   */
  sales: Transaction[];
  /** Refunds: those written in the window and the day before it (a call may straddle its start). */
  refunds: Refund[];
  /** Unanswered payments of processed groups scheduled in the window. */
  unanswered: Payment[];
}

/** The processor key of a sale's charge (a scheduled payment's retry has its attempt's own). */
const saleKeyOf = (t: Transaction): string =>
  t.paymentId !== undefined
    ? processorKeys.payment(t.paymentId, t.attempt ?? 1)
    : processorKeys.sale(t.transactionId);

/** The processor approved its sale (a return after is a line of its own). */
const charged = (t: Transaction): boolean =>
  t.status === 'Approved' || t.status === 'Voided' || t.status === 'Returned';

/** The processor's returns in the window, as it reports them: how many and what they gave back. */
export function reportedReturns(input: Pick<ReconcileInput, 'since' | 'until' | 'activity'>): {
  count: number;
  cents: number;
} {
  const returns = input.activity.filter(
    (a) => a.kind === 'return' && a.at >= input.since && a.at < input.until,
  );
  return { count: returns.length, cents: returns.reduce((sum, a) => sum + a.amountCents, 0) };
}

export function compare(input: ReconcileInput): Difference[] {
  const { since, until } = input;
  const inWindow = (at: string) => at >= since && at < until;
  const staleBefore = new Date(input.now.getTime() - input.staleMinutes * 60_000).toISOString();
  const sales = new Map(input.sales.map((t) => [t.transactionId, t]));
  const refunds = new Map(input.refunds.map((r) => [r.refundId, r]));
  const calls = new Map(input.activity.filter((a) => a.kind !== 'return').map((a) => [a.idempotencyKey, a]));
  const returnCalls = new Map(
    input.activity.filter((a) => a.kind === 'return').map((a) => [a.idempotencyKey, a]),
  );
  const out: Difference[] = [];
  const add = (d: Omit<Difference, 'healed'>) => out.push({ ...d, healed: false });

  // Pending work and a return are judged once older than the stale bound (in flight, or a notice
  // still on its way): those of the stale time before the window too, which the run before left
  // for this one.
  const lateFrom = new Date(Date.parse(since) - input.staleMinutes * 60_000).toISOString();
  const staleNow = (at: string) => at >= lateFrom && at < until && at < staleBefore;
  const judged = (a: ProcessorActivity) => (a.kind === 'return' ? staleNow(a.at) : inWindow(a.at));

  for (const a of input.activity) {
    if (!judged(a)) continue;
    const call = {
      merchantId: a.merchantId,
      processorKey: a.idempotencyKey,
      processorTransactionId: a.processorTransactionId,
      processorCents: a.amountCents,
    };
    if (a.kind === 'refund') {
      const refundId = refundIdOfKey(a.idempotencyKey);
      const r = refundId === undefined ? undefined : refunds.get(refundId);
      if (!a.approved || r?.status === 'Pending') continue; // a Pending refund is judged by its age
      if (!r || r.status === 'Failed')
        add({
          kind: 'reversal-missing',
          ...call,
          refundId,
          detail: 'the processor refunded; the service has no completed refund',
        });
      else if (r.amountCents !== a.amountCents)
        add({
          kind: 'amount-mismatch',
          ...call,
          refundId,
          transactionId: r.transactionId,
          recordCents: r.amountCents,
          detail: 'refund amount differs',
        });
      continue;
    }
    const transactionId = saleIdOfKey(a.idempotencyKey);
    if (transactionId === undefined) continue;
    const t = sales.get(transactionId);
    const ids = { transactionId, ...(t?.paymentId !== undefined && { paymentId: t.paymentId }) };
    if (t !== undefined && (t.status as string) === 'Pending') continue; // judged by its age below
    if (a.kind === 'return') {
      if (t?.status !== 'Returned')
        add({
          kind: 'return-not-recorded',
          ...call,
          ...ids,
          ...(t && { recordCents: t.approvedCents }),
          detail: `the processor returned the debit (${a.responseCode}); the record is ${t?.status ?? 'missing'}`,
        });
      else if (t.return?.code !== a.responseCode)
        add({
          kind: 'status-mismatch',
          ...call,
          ...ids,
          recordCents: t.approvedCents,
          detail: `the processor returned the debit ${a.responseCode}; the record says ${t.return?.code}`,
        });
      else if (a.amountCents !== t.approvedCents)
        add({
          kind: 'amount-mismatch',
          ...call,
          ...ids,
          recordCents: t.approvedCents,
          detail: 'returned amount differs',
        });
      continue;
    }
    if (a.kind === 'void') {
      if (a.approved && t?.status !== 'Voided' && t?.voidingAt === undefined)
        add({
          kind: 'reversal-missing',
          ...call,
          ...ids,
          detail: 'the processor voided the sale; the record is not voided',
        });
      continue;
    }
    if (!t) {
      if (a.approved)
        add({
          kind: 'charge-without-record',
          ...call,
          ...ids,
          detail: 'the processor charged; the service has no record',
        });
    } else if (a.approved !== charged(t)) {
      add({
        kind: 'status-mismatch',
        ...call,
        ...ids,
        recordCents: t.approvedCents,
        detail: `the processor ${a.approved ? 'approved' : `declined (${a.responseCode})`}; the record is ${t.status}`,
      });
    } else if (a.approved && a.amountCents !== t.approvedCents) {
      add({
        kind: 'amount-mismatch',
        ...call,
        ...ids,
        recordCents: t.approvedCents,
        detail: 'charged amount differs',
      });
    }
  }

  for (const t of input.sales) {
    const ids = {
      merchantId: t.merchantId,
      transactionId: t.transactionId,
      ...(t.paymentId !== undefined && { paymentId: t.paymentId }),
      recordCents: t.approvedCents,
    };
    if ((t.status as string) === 'Pending') {
      if (staleNow(t.processedAt))
        add({ kind: 'stale-pending', ...ids, detail: `sale Pending since ${t.processedAt}` });
      continue;
    }
    if (t.voidingAt !== undefined && t.status !== 'Voided' && staleNow(t.voidingAt))
      add({ kind: 'stale-pending', ...ids, detail: `void reserved since ${t.voidingAt}, not finished` });
    if (!inWindow(t.processedAt)) continue;
    if (charged(t) && !calls.has(saleKeyOf(t)))
      add({
        kind: 'record-without-charge',
        ...ids,
        detail: `the record is ${t.status}; the processor has no such sale`,
      });
    if (t.status === 'Returned' && !returnCalls.has(saleKeyOf(t)))
      add({
        kind: 'return-unreported',
        ...ids,
        detail: `the record is Returned (${t.return?.code}); the processor reports no return`,
      });
    if (t.status === 'Voided' && calls.get(processorKeys.void(t.transactionId))?.approved !== true)
      add({ kind: 'reversal-missing', ...ids, detail: 'the record is Voided; the processor has no void' });
  }

  for (const r of input.refunds) {
    const ids = {
      merchantId: sales.get(r.transactionId)?.merchantId ?? '',
      transactionId: r.transactionId,
      refundId: r.refundId,
      recordCents: r.amountCents,
    };
    // A scheduled refund is due from its cut-off on, not from when it was recorded; one held until
    // its bank debit cleared, from the clearing on (not cleared, or its sale not read: not due).
    const due =
      r.heldUntilCleared === true
        ? sales.get(r.transactionId)?.clearedAt
        : r.sendAfter !== undefined && r.sendAfter > r.date
          ? r.sendAfter
          : r.date;
    if (r.status === 'Pending' && due !== undefined && staleNow(due))
      add({ kind: 'stale-pending', ...ids, detail: `refund Pending since ${due}` });
    if (!inWindow(r.date)) continue;
    if (r.status === 'Completed' && calls.get(processorKeys.refund(r.refundId))?.approved !== true)
      add({
        kind: 'reversal-missing',
        ...ids,
        detail: 'the refund is Completed; the processor has no refund',
      });
  }

  for (const p of input.unanswered)
    add({
      kind: 'unanswered-payment',
      merchantId: p.merchantId,
      paymentGroupId: p.paymentGroupId,
      paymentId: p.paymentId,
      recordCents: p.amountCents,
      detail: 'the group is processed; this payment has no authResponse',
    });
  return out;
}

/** What identifies a difference from one run to the next (to tell healed from remaining). */
export const differenceKey = (d: Difference): string =>
  [d.kind, d.transactionId, d.refundId, d.paymentId, d.processorKey].map((v) => v ?? '').join('|');
