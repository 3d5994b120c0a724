/**
 * The notices backstop (docs/architecture.md "Notices"): a scheduled run that lists the
 * processor's notices since its stored cursor and applies them through the same path a verified
 * webhook takes (core/notices.ts), so that a lost webhook is never a lost return; then tries the
 * held notices that are due and finishes the follow-ups a crash left. Bounded by its deadline:
 * what is left waits for the next run, which reads from the cursor the last page left.
 */
import { NOTICE_BACKSTOP_JOB } from '#contract/notices';
import { paymentProcessor } from '#core/processor';
import { clock } from '#shared/clock';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { noticeStore } from '#store/notices';
import { runDueFollowUps } from './notice-follow-ups';
import { emptyCounts, receiveNotices, retryHeldNotices, type NoticeCounts } from './notices';

export interface NoticeBackstopReport {
  /** Pages listed from the processor (0: it has no notices to list). */
  pages: number;
  listed: NoticeCounts;
  held: NoticeCounts;
  followUps: number;
}

const add = (into: NoticeCounts, more: NoticeCounts): void => {
  for (const key of Object.keys(into) as (keyof NoticeCounts)[]) into[key] += more[key];
};

export async function runNoticeBackstop(now: Date, deadlineMs: number): Promise<NoticeBackstopReport> {
  const processor = paymentProcessor();
  const name = config().processor;
  const store = noticeStore();
  const { pageSize } = NOTICE_BACKSTOP_JOB;
  const report: NoticeBackstopReport = { pages: 0, listed: emptyCounts(), held: emptyCounts(), followUps: 0 };
  if (processor.listNotices) {
    for (let more = true; more && clock.nowMs() < deadlineMs;) {
      const read = await store.cursor(name);
      const page = await processor.listNotices({
        ...(read !== undefined && { cursor: read }),
        limit: pageSize,
        now: now.toISOString(),
        deadlineMs,
      });
      report.pages++;
      add(report.listed, await receiveNotices(page.notices, 'backstop', now, deadlineMs));
      // Another run moved the cursor meanwhile: it goes on from there; this one stops listing.
      if (!(await store.advanceCursor(name, read, page.cursor))) break;
      more = page.more;
    }
  }
  // Neither starts a held notice or a follow-up after the deadline: they stay due for the next run.
  report.held = await retryHeldNotices(now, pageSize, deadlineMs);
  report.followUps = await runDueFollowUps(now, pageSize, deadlineMs);
  logger.info('notices backstop ran', { ...report });
  return report;
}
