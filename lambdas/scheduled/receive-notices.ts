/**
 * The notices backstop (EventBridge every NOTICE_BACKSTOP_JOB.intervalMinutes; locally a timer
 * and `POST /__local/events/notices`): the processor's notices since the stored cursor, the held
 * notices due and the follow-ups left, applied once each (core/notice-backstop.ts).
 */
import { NOTICE_BACKSTOP_JOB } from '#contract/notices';
import { runNoticeBackstop, type NoticeBackstopReport } from '#core/notice-backstop';
import { clock } from '#shared/clock';
import { taskHandler } from '#shared/task';

export const handler = taskHandler((): Promise<NoticeBackstopReport> =>
  runNoticeBackstop(clock.now(), clock.nowMs() + NOTICE_BACKSTOP_JOB.budgetSeconds * 1000),
);
