/**
 * Notifications of change (docs/product.md "Notifications of change"): a bank's correction of an
 * account a debit went to, applied to the saved method before its next debit.
 */
import type { NoticeOutcome } from '#domain/notices';
import type { ProcessorNotice } from '#processor/processor';

type NocNotice = Extract<ProcessorNotice, { kind: 'noc' }>;

/** Applies one notification of change once: not built yet. */
export function applyNoc(notice: NocNotice, _now: Date): Promise<NoticeOutcome> {
  return Promise.reject(new Error(`notifications of change are not built yet (notice ${notice.noticeId})`));
}
