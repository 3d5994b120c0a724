/**
 * Applying the processor's notices (docs/architecture.md "Notices"): the one way in for every
 * notice, whichever way it came (a verified inbound webhook, the backstop's listing, a held
 * notice tried again, the sandbox's delivery).
 *
 * - **Once.** Each kind's function writes the notice's mark (`store/notices.ts`), the record's new
 *   state and its event in one transaction; a second caller loses that write and meets the notice
 *   as `applied_before`. A notice that changes nothing (late, or its record gone) is marked alone.
 * - **Further effects** (a method closed or revoked, series suspended, held refunds sent) are
 *   written ahead as the notice's follow-up in the same transaction and done right after it; what
 *   a crash leaves, the backstop job finishes (every step is idempotent).
 * - **Kept.** A notice that matches no final record yet (a webhook that beat the processor's API
 *   answer, a sale still Pending, a refund in flight, a refund's failure before its record) is
 *   kept and tried again, for HOLD_DAYS.
 * - **Order.** Per object, notices apply in the processor's order (`sequence`); a late one
 *   changes nothing.
 */
import {
  HOLD_DAYS,
  holdDelaySeconds,
  outcome,
  type NoticeOutcome,
  type NoticeOutcomeKind,
} from '#domain/notices';
import type { ProcessorNotice } from '#processor/processor';
import { clock } from '#shared/clock';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import { noticeStore } from '#store/notices';
import { applyAccountUpdateNotice } from './account-updater';
import { applyBankNotice } from './bank-notices';
import { applyDisputeNotice } from './disputes';
import { runFollowUp } from './notice-follow-ups';
import { applyNoc } from './nocs';
import { applyRefundFailure } from './refund-failures';

/** Where a notice came from (logged with what it came to). */
type NoticeSource = 'webhook' | 'backstop' | 'held' | 'sandbox';

/** What a batch of notices came to, by outcome. */
export type NoticeCounts = Record<NoticeOutcomeKind, number> & {
  /** Held notices given up on after HOLD_DAYS (their record never appeared): marked skipped. */
  givenUp: number;
};

export const emptyCounts = (): NoticeCounts => ({
  applied: 0,
  applied_before: 0,
  stale: 0,
  held: 0,
  skipped: 0,
  givenUp: 0,
});

/** The kind's own application: its mark, its record's change and its event in one transaction. */
async function dispatch(notice: ProcessorNotice, now: Date): Promise<NoticeOutcome> {
  switch (notice.kind) {
    case 'cleared':
    case 'returned':
      return applyBankNotice(notice, now);
    case 'noc':
      return applyNoc(notice, now);
    case 'dispute_opened':
    case 'dispute_updated':
    case 'dispute_closed':
      return applyDisputeNotice(notice, now);
    case 'account_update':
      return applyAccountUpdateNotice(notice, now);
    case 'refund_failed':
      return applyRefundFailure(notice, now);
    default: {
      // A kind this service does not know (a newer adapter): nothing to change; counted.
      const unknown = notice as { kind: string };
      return outcome('skipped', `unknown notice kind ${unknown.kind}`);
    }
  }
}

/**
 * Applies one notice once: what it came to. `stale` and `skipped` are marked here (a repeat is
 * then `applied_before`); `held` is left to the caller (`receiveNotices` keeps it). A notice
 * already marked is not read further. Its follow-up runs at once unless `followUpBy` (epoch ms)
 * has passed: then it waits, written ahead, for the backstop's pass over follow-ups.
 */
export async function applyNotice(
  notice: ProcessorNotice,
  now: Date,
  followUpBy = Number.POSITIVE_INFINITY,
): Promise<NoticeOutcome> {
  const store = noticeStore();
  // An account update's own mark is the account updater's (per update and method): the daily job
  // and a pushed notice meet the same update once. A NOC's change is marked the same way (per
  // method); one that changes nothing is marked here.
  const ownMark = notice.kind !== 'account_update';
  if (ownMark && (await store.isMarked(notice.noticeId))) return outcome('applied_before');
  const result = await dispatch(notice, now);
  if (result.outcome === 'stale' || result.outcome === 'skipped') {
    if (ownMark && !(await store.markOnly(notice, result.outcome, now))) return outcome('applied_before');
  }
  if (result.outcome === 'applied' && clock.nowMs() < followUpBy) {
    try {
      await runFollowUp(notice.noticeId, now);
    } catch (error) {
      // The notice is applied: its follow-up, written ahead, is the backstop's to finish (a step
      // may wait, as a summary's move for a retry round of its group).
      logger.warn('notice follow-up left for the backstop', { noticeId: notice.noticeId, error });
    }
  }
  return result;
}

/**
 * Applies one notice and keeps it when it matches no final record yet (tried again after a
 * growing wait, for HOLD_DAYS; then given up: marked skipped, logged as an error). A failure
 * other than a lost race keeps it too: the caller has its answer, and the notice is not lost.
 */
async function receiveOne(
  notice: ProcessorNotice,
  source: NoticeSource,
  now: Date,
  counts: NoticeCounts,
  deadlineMs: number,
): Promise<void> {
  let result: NoticeOutcome;
  try {
    result = await applyNotice(notice, now, deadlineMs);
  } catch (error) {
    logger.error('a notice could not be applied; kept to try again', {
      noticeId: notice.noticeId,
      kind: notice.kind,
      error,
    });
    result = outcome('held', 'its application failed');
  }
  const log = { noticeId: notice.noticeId, kind: notice.kind, objectId: notice.objectId, source };
  if (result.outcome === 'held') {
    const store = noticeStore();
    const before = await store.held(notice.noticeId);
    if (before && now.getTime() - Date.parse(before.heldAt) > HOLD_DAYS * 86_400_000) {
      logger.error('a held notice was given up: its record never appeared', {
        ...log,
        heldAt: before.heldAt,
      });
      await store.markOnly(notice, 'skipped', now);
      await store.dropHold(notice.noticeId);
      counts.givenUp++;
      return;
    }
    const tries = (before?.tries ?? 0) + 1;
    await store.hold(notice, result.reason ?? 'no record yet', now, retryAt(now, tries));
    logger.info('notice kept for its record', { ...log, reason: result.reason, tries });
    counts.held++;
    return;
  }
  if (source === 'held') await noticeStore().dropHold(notice.noticeId);
  if (result.outcome === 'skipped') logger.warn('notice skipped', { ...log, reason: result.reason });
  // A repeat is counted, not logged: the backstop lists the last minutes again on every run.
  else if (result.outcome === 'stale') logger.info('notice stale', { ...log, reason: result.reason });
  counts[result.outcome]++;
}

const retryAt = (now: Date, tries: number): string =>
  new Date(now.getTime() + holdDelaySeconds(tries) * 1000).toISOString();

/**
 * Applies a batch of notices: per object in the processor's order (one after another), objects
 * side by side (8 at a time). What they came to, counted.
 */
export async function receiveNotices(
  notices: readonly ProcessorNotice[],
  source: NoticeSource,
  now: Date,
  deadlineMs = Number.POSITIVE_INFINITY,
): Promise<NoticeCounts> {
  const counts = emptyCounts();
  const byObject = new Map<string, ProcessorNotice[]>();
  for (const notice of notices) {
    const list = byObject.get(notice.objectId) ?? [];
    list.push(notice);
    byObject.set(notice.objectId, list);
  }
  await mapLimit([...byObject.values()], 8, async (list) => {
    for (const notice of [...list].sort((a, b) => a.sequence - b.sequence)) {
      // A held notice not started stays held, due: the next run tries it. (A listed page is
      // applied whole, its follow-ups left to the backstop after the deadline: the cursor moves
      // past the page.)
      if (source === 'held' && clock.nowMs() >= deadlineMs) return;
      await receiveOne(notice, source, now, counts, deadlineMs);
    }
  });
  return counts;
}

/**
 * The held notices due by `now` tried again (at most `limit`), none started after `deadlineMs`
 * (epoch ms): what they came to.
 */
export async function retryHeldNotices(
  now: Date,
  limit: number,
  deadlineMs = Number.POSITIVE_INFINITY,
): Promise<NoticeCounts> {
  const held = await noticeStore().dueHolds<ProcessorNotice>(now.toISOString(), limit);
  return receiveNotices(
    held.map((h) => h.notice),
    'held',
    now,
    deadlineMs,
  );
}
