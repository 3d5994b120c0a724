/**
 * A notice's follow-up work (core/notices.ts): written ahead in the notice's transaction, done
 * right after it, and by the backstop job when a crash came between. Every step is idempotent.
 */
import type { NoticeFollowUp } from '#domain/notices';
import { logger } from '#shared/logger';
import { noticeStore } from '#store/notices';

/** Does one follow-up's work (each kind's steps are idempotent). */
function perform(work: NoticeFollowUp, _now: Date): Promise<void> {
  return Promise.reject(new Error(`notice follow-up ${work.kind} is not built yet`));
}

/** Does the notice's follow-up work, if any is left, and removes it: true when there was some. */
export async function runFollowUp(noticeId: string, now: Date): Promise<boolean> {
  const store = noticeStore();
  const item = await store.followUp(noticeId);
  if (!item) return false;
  await perform(item.work, now);
  await store.followUpDone(noticeId);
  logger.info('notice follow-up done', { noticeId, kind: item.work.kind });
  return true;
}
