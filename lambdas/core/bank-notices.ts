/**
 * A bank debit's clearing and return (docs/product.md "Returns"): applied to its sale, and to the
 * scheduled payment it charged.
 */
import type { NoticeOutcome } from '#domain/notices';
import type { ProcessorNotice } from '#processor/processor';

export type BankNotice = Extract<ProcessorNotice, { kind: 'cleared' | 'returned' }>;

/** Applies one clearing or return once: not built yet. */
export function applyBankNotice(notice: BankNotice, _now: Date): Promise<NoticeOutcome> {
  return Promise.reject(new Error(`bank notices are not built yet (notice ${notice.noticeId})`));
}
