/**
 * A notice's follow-up work (core/notices.ts): written ahead in the notice's transaction, done
 * right after it, and by the backstop job when a crash came between. Every step is idempotent.
 *
 * - `method`: a returned debit's saved method closed (`administrative`) or revoked
 *   (`unauthorized`: and its payments in every series suspended, `authorization_revoked`, each
 *   series at its revision read with `series.updated`), announced (`payment_method.updated`, `payment_method.revoked`) with the
 *   payor's e-mail, in one transaction under the account updater's per-cause mark
 *   (store/account-updates.ts: `return:<transactionId>`), so that a repeat changes nothing; a
 *   method already so (or revoked, which nothing undoes) or deleted is left as it is.
 * - `refunds`: refunds held until the debit cleared, sent now: not built yet (nothing holds a
 *   refund yet); it stays written for the backstop until it is.
 */
import { methodAfterReturn, seriesSuspension } from '#domain/bank-notices';
import { seriesEvent } from '#domain/series-view';
import type { NoticeFollowUp } from '#domain/notices';
import { accountUpdateOutboxId } from '#domain/notifications';
import { methodEvent } from '#domain/payors';
import { logger } from '#shared/logger';
import { PAYOR, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { accountUpdateStore } from '#store/account-updates';
import { noticeStore } from '#store/notices';
import { payorStore } from '#store/payors';
import { seriesStore } from '#store/series';
import { methodUnusableEmail } from './account-updater';

type MethodWork = Extract<NoticeFollowUp, { kind: 'method' }>;

/** Closes or revokes the method of a returned debit once: what it came to, for the log. */
async function closeOrRevoke(work: MethodWork, now: Date): Promise<string> {
  const store = accountUpdateStore();
  const markId = `return:${work.transactionId}`;
  return withOptimisticRetry(async () => {
    if (await store.isApplied(markId, work.savedPaymentMethodId)) return 'done before';
    const found = await payorStore().find(work.payorId, work.merchantId);
    const method = found?.methods.find((m) => m.savedPaymentMethodId === work.savedPaymentMethodId);
    if (!found || !method) return 'method gone';
    const next = methodAfterReturn(method, work.action, now);
    if (!next) return `method ${method.status ?? 'active'} already`;
    const type = work.action === 'revoke' ? 'payment_method.revoked' : 'payment_method.updated';
    const event = methodEvent(type, next, found.payor.defaultPaymentMethodId, now);
    const outbox =
      found.payor.email === undefined
        ? undefined
        : await methodUnusableEmail(
            accountUpdateOutboxId(`${markId}:${work.savedPaymentMethodId}`),
            found.payor.email,
            next,
            { status: work.action === 'revoke' ? 'revoked' : 'closed', returnCode: work.code },
            now,
          );
    const written = await store.apply(markId, next, event, outbox, now);
    if (written === 'changed') return undefined; // read again
    return written === 'ok' ? (work.action === 'revoke' ? 'revoked' : 'closed') : 'done before';
  }, PAYOR);
}

/**
 * A revoked method's payments in every series suspended (the series go on for their other
 * payments), each series in writes at its revision read, announced by `series.updated`: how many.
 */
async function suspendSeriesPayments(methodId: string, now: Date): Promise<number> {
  const store = seriesStore();
  const seriesIds = [...new Set((await store.usesOfMethod(methodId)).map((u) => u.seriesId))];
  let suspended = 0;
  for (const seriesId of seriesIds) {
    for (;;) {
      const written = await withOptimisticRetry(
        async () => {
          const series = await store.get(seriesId);
          const change = series && seriesSuspension(series, await store.payments(seriesId), methodId, now);
          if (!change) return 0;
          const event = seriesEvent('series.updated', change.next, now);
          return (await store.suspendPayments(change.next, series, change.suspend, event))
            ? change.suspend.length
            : undefined;
        },
        { resource: 'this series' },
      );
      if (written === 0) break;
      suspended += written;
    }
  }
  return suspended;
}

/** Does one follow-up's work (each kind's steps are idempotent). */
async function perform(work: NoticeFollowUp, now: Date): Promise<string> {
  switch (work.kind) {
    case 'method': {
      const result = await closeOrRevoke(work, now);
      if (work.action !== 'revoke') return result;
      // Also after a crash between the revocation and the series: the suspension is idempotent.
      const suspended = await suspendSeriesPayments(work.savedPaymentMethodId, now);
      return `${result}; ${suspended} series payments suspended`;
    }
    case 'refunds':
      throw new Error('sending refunds held until the debit cleared is not built yet');
  }
}

/** Does the notice's follow-up work, if any is left, and removes it: true when there was some. */
export async function runFollowUp(noticeId: string, now: Date): Promise<boolean> {
  const store = noticeStore();
  const item = await store.followUp(noticeId);
  if (!item) return false;
  const result = await perform(item.work, now);
  await store.followUpDone(noticeId);
  logger.info('notice follow-up done', { noticeId, kind: item.work.kind, result });
  return true;
}

/**
 * The backstop's pass over follow-up work written before `now` and not done (a crash came
 * between a notice's transaction and its follow-up): each finished, at most `limit`; how many.
 */
export async function runDueFollowUps(now: Date, limit: number): Promise<number> {
  const due = await noticeStore().dueFollowUps(now.toISOString(), limit);
  let done = 0;
  for (const item of due) {
    try {
      if (await runFollowUp(item.noticeId, now)) done++;
    } catch (error) {
      // Left for the next pass; the others go on.
      logger.error('notice follow-up failed; left for the next pass', { noticeId: item.noticeId, error });
    }
  }
  return done;
}
