/**
 * Card disputes (docs/product.md "Disputes"): applying the processor's dispute notices to the
 * service's dispute records. Called by core/notices.ts for `dispute_opened`, `dispute_updated`
 * and `dispute_closed`; like every kind, it writes the notice's mark (`noticeStore().markPut`),
 * the record's change and its event in one transaction, and answers what the notice came to.
 */
import type { NoticeOutcome } from '#domain/notices';
import type { ProcessorNotice } from '#processor/processor';

type DisputeNotice = Extract<
  ProcessorNotice,
  { kind: 'dispute_opened' | 'dispute_updated' | 'dispute_closed' }
>;

/** Applies one dispute notice once: not built yet. */
export function applyDisputeNotice(notice: DisputeNotice, _now: Date): Promise<NoticeOutcome> {
  return Promise.reject(new Error(`dispute notices are not built yet (notice ${notice.noticeId})`));
}
