/**
 * The sweeper: settles money-moving work that a crash, a timeout or a lost answer left half done
 * (docs/architecture.md#sweeper). Every sale and refund is written `Pending` before the processor
 * is asked; `sweep` finds those still Pending after `olderThanSeconds` through the sparse sweep
 * index and settles each with its own processor key (a replay moves no money twice).
 *
 * - a Pending sale: its processor call replayed with its key, the answer recorded (runSale); a
 *   sale whose method is gone, or that turns out to be a duplicate, is reversed and Declined;
 * - a Pending refund: its processor call replayed with its key, Completed or Failed; a refund a
 *   group's void-or-refund scheduled inside the void margin is due from its
 *   cut-off on (its entry is dated then) and its outcome is shown on its payment;
 * - a reserved void: finished (Voided), or released when the processor refuses it;
 * - a sale given up on (Declined 96) whose timeout reversal is due: reversed.
 *
 * Idempotency claims need no entry of their own: a claim's work is one of the above (settled
 * here), and a retry of the request then resumes the claim onto the settled record.
 */
import { ProcessorUnavailableError } from '#processor/processor';
import { processorTiming } from '#core/processor';
import { mapLimit } from '#shared/concurrency';
import { ServiceError } from '#shared/errors';
import { logger } from '#shared/logger';
import type { Transaction } from '#domain/transactions';
import { READ_LIMITS } from '#store/read-limits';
import { sweepIndex, type SweepKind as StoredSweepKind, type SweepWork } from '#store/sweep-index';
import { transactionStore } from '#store/transactions';
import { refundSale, voidSale } from './reversals';
import { REVERSED_MESSAGE, reverseSaleKey, runSale } from './sale';
import { sendScheduledRefund } from './scheduled-refunds';
import { clock } from '#shared/clock';

/** Work settled at once: the processor's and the table's load stay modest. */
const CONCURRENCY = 8;

/** The least staleness bound (the sandbox's: 10 s of an API function and 5 s). */
const STALE_AFTER_SECONDS = 15;

/**
 * Work Pending longer than this is stale: longer than an API function may run (its processor's
 * `apiTimeoutSeconds`: the sandbox's 10 s, Stripe's 27 s) and a margin, so no live API request is
 * overtaken. A scheduled charge still in flight may be replayed, which is safe: the same key gets
 * the same answer, and the first record wins (docs/architecture.md#sweeper).
 */
export const staleAfterSeconds = (): number =>
  Math.max(STALE_AFTER_SECONDS, processorTiming().apiTimeoutSeconds + 5);

type SweepKind = StoredSweepKind;

export interface SweepEntry {
  kind: SweepKind;
  merchantId: string;
  transactionId: string;
  /** For refunds. */
  refundId?: string;
  /** The status recorded (Approved, Declined, Completed, Failed, Voided), or why it was left. */
  result: string;
}

export interface SweepReport {
  /** Settled with the processor's answer (an approval recorded, a refund completed, a void finished). */
  settled: SweepEntry[];
  /** Undone: the processor reversed the charge (no record could be made) or refused the void. */
  reversed: SweepEntry[];
  /** Left Pending: the processor did not answer; the next sweep tries again. */
  unsettled: SweepEntry[];
  /** Work read but not started before the deadline: the next sweep takes it. */
  deferred: number;
}

interface SweepOptions {
  /** Only work Pending for longer than this is touched (a request still running is left alone). */
  olderThanSeconds: number;
  /** At most this much work is read (default READ_LIMITS.sweepWork). */
  maxItems?: number;
  /** No item is started after this (epoch ms): the rest is left for the next sweep. */
  deadline?: number;
}

type Bucket = 'settled' | 'reversed' | 'unsettled';

/** Settles one Pending sale (also on the next touch: a GET of it). */
async function sweepSale(txn: Transaction, now: Date): Promise<[Bucket, SweepEntry]> {
  const entry = (result: string): SweepEntry => ({
    kind: 'sale',
    merchantId: txn.merchantId,
    transactionId: txn.transactionId,
    result,
  });
  try {
    const settled = await runSale(
      {
        transactionId: txn.transactionId,
        processorKey: txn.processorKey ?? '',
        merchantId: txn.merchantId,
        profileId: txn.profileId,
        amountCents: txn.amountCents,
        allowPartial: txn.allowPartial ?? false,
        ...(txn.orderId !== undefined && { orderId: txn.orderId }),
        ...(txn.paymentId !== undefined && { paymentId: txn.paymentId }),
        missingMethod: 'decline',
        onNoAnswer: 'throw',
      },
      now,
    );
    const undone = settled.isDuplicate || settled.responseMessage === REVERSED_MESSAGE;
    return [undone ? 'reversed' : 'settled', entry(settled.status)];
  } catch (error) {
    if (!(error instanceof ProcessorUnavailableError)) throw error;
    return ['unsettled', entry(`processor unavailable: ${error.message}`)];
  }
}

/** Work that no longer applies: its entry outlived it (settled by a write that left it behind). */
const GONE = 'gone';

async function settleWork(
  work: SweepWork,
  now: Date,
): Promise<[Bucket, SweepEntry] | typeof GONE | undefined> {
  const store = transactionStore();
  const found = await store.find(work.transactionId);
  if (!found) return undefined;
  const txn = found.transaction;
  const entry = (result: string): SweepEntry => ({
    kind: work.kind,
    merchantId: txn.merchantId,
    transactionId: txn.transactionId,
    ...(work.refundId !== undefined && { refundId: work.refundId }),
    result,
  });
  try {
    switch (work.kind) {
      case 'sale':
        return txn.status === 'Pending' ? await sweepSale(txn, now) : GONE;
      case 'refund': {
        const refund = found.refunds.find((r) => r.refundId === work.refundId);
        if (!refund) return undefined;
        if (refund.status !== 'Pending') return GONE;
        if (refund.sendAfter !== undefined) {
          // Scheduled for after the cut-off: never sent before it, whatever the sweep's age bound.
          if (now.toISOString() < refund.sendAfter) return undefined;
          return ['settled', entry((await sendScheduledRefund(txn, refund, now)).status)];
        }
        const done = await refundSale(
          txn.merchantId,
          txn.transactionId,
          refund.amountCents,
          refund.refundId,
          now,
        );
        return ['settled', entry(done.refund.status)];
      }
      case 'void': {
        if (txn.status !== 'Approved' || txn.voidingAt === undefined) return GONE;
        try {
          return ['settled', entry((await voidSale(txn.merchantId, txn.transactionId, now)).status)];
        } catch (error) {
          // A definite refusal: voidSale released the reservation (a refund may follow).
          if (error instanceof ServiceError && error.status < 500) return ['reversed', entry('void refused')];
          throw error;
        }
      }
      case 'reverse':
        if (!txn.reversalDue) return GONE;
        await reverseSaleKey(txn);
        await store.reversalDone(txn.transactionId);
        return ['reversed', entry(txn.status)];
    }
  } catch (error) {
    if (!(error instanceof ProcessorUnavailableError)) throw error;
    return ['unsettled', entry(`processor unavailable: ${error.message}`)];
  }
}

/** Settles every stale Pending sale, refund, reserved void and due reversal; see SweepReport. */
export async function sweep(now: Date, options: SweepOptions): Promise<SweepReport> {
  const before = new Date(now.getTime() - options.olderThanSeconds * 1000).toISOString();
  const work = await sweepIndex().staleWork(before, options.maxItems ?? READ_LIMITS.sweepWork);
  const report: SweepReport = { settled: [], reversed: [], unsettled: [], deferred: 0 };
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const outcomes = await mapLimit(work, CONCURRENCY, async (item) => {
    if (clock.nowMs() > deadline) {
      report.deferred++;
      return undefined;
    }
    try {
      const outcome = await settleWork(item, now);
      if (outcome !== GONE) return outcome;
      await sweepIndex().drop(item);
      return undefined;
    } catch (error) {
      // One item's failure must not stop the others: it stays in the index for the next sweep.
      logger.error('sweep: could not settle', { ...item, error });
      return [
        'unsettled',
        { kind: item.kind, merchantId: '', transactionId: item.transactionId, result: String(error) },
      ] as [Bucket, SweepEntry];
    }
  });
  for (const outcome of outcomes) if (outcome) report[outcome[0]].push(outcome[1]);
  if (work.length > 0)
    logger.info('sweep', {
      settled: report.settled.length,
      reversed: report.reversed.length,
      unsettled: report.unsettled.length,
      deferred: report.deferred,
    });
  return report;
}
