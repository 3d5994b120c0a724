/**
 * The account updater job (DESIGN section 5, "The card lifecycle"; docs/decisions.md "Account
 * updater"): once a day (and by `npm run admin -- account-updater`) it asks the processor for the
 * account updates since its cursor and applies each to the saved method vaulted with its token.
 *
 * Each update is applied once: the method's change, the update's mark (a conditional write keyed
 * by the update's id), its `payment_method.account_updated` event and, for a closed or
 * contact-cardholder account, the payor's e-mail asking for a new method, are one transaction. A
 * second run, or one running at the same time, loses that write and counts the update as applied
 * before. A change of the method between read and write (a merchant's PUT, a deletion mark) makes
 * it read again. Bounded: no update is started after the deadline; the cursor then stays at the
 * first one left, and the next run goes on from there (it reads an hour before the cursor, so an
 * update the processor recorded late is not missed).
 */
import {
  accountUpdated,
  isLateAccountUpdate,
  makesUnusable,
  type AccountChange,
} from '#domain/account-updates';
import { accountUpdateOutboxId, type OutboxItem } from '#domain/notifications';
import { methodEvent, type SavedMethod } from '#domain/payors';
import { paymentProcessor } from '#core/processor';
import type { AccountUpdate, ProcessorNotice } from '#processor/processor';
import { outcome, type NoticeOutcome } from '#domain/notices';
import { logger } from '#shared/logger';
import { PAYOR, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { accountUpdateStore } from '#store/account-updates';
import { payorStore } from '#store/payors';
import { findMerchant } from './merchants';
import { clock } from '#shared/clock';

/** The first run reads this far back. */
const FIRST_RUN_DAYS = 30;
/** Each run reads again this far before its cursor: updates the processor recorded late. */
const OVERLAP_MS = 3_600_000;

export interface AccountUpdaterReport {
  since: string;
  until: string;
  /** Updates the processor listed. */
  listed: number;
  /** Methods changed by this run. */
  applied: number;
  /** Updates met again (an earlier or concurrent run applied them). */
  appliedBefore: number;
  /** Updates whose token names no saved method (deleted since, or never saved). */
  noMethod: number;
  /** Updates left for the next run (the deadline came first). */
  left: number;
  /** Updates older than the last one applied to their method: nothing changed. */
  late: number;
}

/** The change an update makes, without its ids. */
function changeOf(update: AccountUpdate): AccountChange {
  switch (update.kind) {
    case 'new_expiry':
      return { kind: update.kind, expiryMonth: update.expiryMonth, expiryYear: update.expiryYear };
    case 'new_number':
      return {
        kind: update.kind,
        maskedAccountNumber: update.maskedAccountNumber,
        expiryMonth: update.expiryMonth,
        expiryYear: update.expiryYear,
        ...(update.fingerprint !== undefined && { fingerprint: update.fingerprint }),
      };
    default:
      return { kind: update.kind };
  }
}

type Applied = 'applied' | 'applied-before' | 'no-method' | 'late';

/**
 * The payor's e-mail asking for a new method, the one `method` can no longer be charged (an
 * account update closed it, or a bank return closed or revoked it: `why`).
 */
export async function methodUnusableEmail(
  outboxId: string,
  recipient: string,
  method: SavedMethod,
  why: { status: 'closed' | 'contact_cardholder' | 'revoked'; returnCode?: string },
  now: Date,
): Promise<OutboxItem> {
  const merchant = await findMerchant(method.merchantId);
  return {
    outboxId,
    kind: 'method-unusable',
    recipient,
    status: 'pending',
    attempts: 0,
    createdAt: now.toISOString(),
    data: {
      merchantName: merchant?.name ?? method.merchantId,
      maskedAccountNumber: method.maskedAccountNumber,
      accountType: method.accountType,
      ...why,
    },
  };
}

/** A change of a saved method made once per mark (an account update's, a NOC's). */
interface MethodChange {
  /** The mark's id: the change is made once per id and method. */
  markId: string;
  next: (method: SavedMethod) => SavedMethod;
  /** Whether the change is older than the method as it is (`late`: nothing changes). */
  late?: (method: SavedMethod) => boolean;
  eventType: 'payment_method.account_updated' | 'payment_method.corrected';
  /** Why the method can no longer be charged, when the change makes it so (its payor is e-mailed). */
  unusable?: 'closed' | 'contact_cardholder';
}

/** Applies one change to one method: once, whatever else runs. */
export async function changeMethodOnce(
  change: MethodChange,
  ref: { payorId: string; savedPaymentMethodId: string; merchantId: string },
  now: Date,
): Promise<Applied> {
  const store = accountUpdateStore();
  return withOptimisticRetry(async () => {
    if (await store.isApplied(change.markId, ref.savedPaymentMethodId)) return 'applied-before';
    const found = await payorStore().find(ref.payorId, ref.merchantId);
    const method = found?.methods.find((m) => m.savedPaymentMethodId === ref.savedPaymentMethodId);
    if (!found || !method) return 'no-method';
    if (change.late?.(method) === true) return 'late';
    const next = change.next(method);
    const event = methodEvent(change.eventType, next, found.payor.defaultPaymentMethodId, now);
    const outbox =
      change.unusable !== undefined && found.payor.email !== undefined
        ? await methodUnusableEmail(
            accountUpdateOutboxId(`${change.markId}:${ref.savedPaymentMethodId}`),
            found.payor.email,
            next,
            { status: change.unusable },
            now,
          )
        : undefined;
    const outcome = await store.apply(change.markId, next, event, outbox, now);
    if (outcome === 'changed') return undefined; // read again (and find the mark, if a racer won)
    return outcome === 'ok' ? 'applied' : 'applied-before';
  }, PAYOR);
}

/** Applies one update to one method: once, whatever else runs. */
function applyToMethod(
  update: AccountUpdate,
  ref: { payorId: string; savedPaymentMethodId: string; merchantId: string },
  now: Date,
): Promise<Applied> {
  const change = changeOf(update);
  return changeMethodOnce(
    {
      markId: update.updateId,
      next: (method) => accountUpdated(method, change, now, update.at),
      late: (method) => isLateAccountUpdate(method, update.at),
      eventType: 'payment_method.account_updated',
      ...(makesUnusable(change) && { unusable: change.kind }),
    },
    ref,
    now,
  );
}

/**
 * One run: the updates from an hour before the cursor (the first run: FIRST_RUN_DAYS back) to
 * `now`, applied in order until `deadline` (epoch ms).
 */
export async function runAccountUpdater(now: Date, deadline: number): Promise<AccountUpdaterReport> {
  const store = accountUpdateStore();
  const cursor = await store.cursor();
  const start = cursor ? Date.parse(cursor) - OVERLAP_MS : now.getTime() - FIRST_RUN_DAYS * 86_400_000;
  const since = new Date(Math.min(start, now.getTime())).toISOString();
  const until = now.toISOString();
  const updates = await paymentProcessor().accountUpdates(since, until);
  const report: AccountUpdaterReport = {
    since,
    until,
    listed: updates.length,
    applied: 0,
    appliedBefore: 0,
    noMethod: 0,
    left: 0,
    late: 0,
  };
  let reached = until;
  for (const [index, update] of updates.entries()) {
    if (clock.nowMs() >= deadline) {
      report.left = updates.length - index;
      reached = update.at;
      break;
    }
    const refs = await store.methodsOfToken(update.token);
    if (refs.length === 0) report.noMethod++;
    for (const ref of refs) {
      const outcome = await applyToMethod(update, ref, now);
      if (outcome === 'applied') report.applied++;
      else if (outcome === 'applied-before') report.appliedBefore++;
      else if (outcome === 'late') report.late++;
      else report.noMethod++;
    }
  }
  await store.advance(reached);
  logger.info('account updater run', { ...report });
  return report;
}

/**
 * An account update pushed as a notice (a processor that sends them one at a time as they come,
 * core/notices.ts): applied as the daily job applies it, under the same per-method mark, so the
 * job and the notice meet each update once.
 */
export async function applyAccountUpdateNotice(
  notice: Extract<ProcessorNotice, { kind: 'account_update' }>,
  now: Date,
): Promise<NoticeOutcome> {
  const { update } = notice;
  const refs = await accountUpdateStore().methodsOfToken(update.token);
  if (refs.length === 0)
    return outcome('skipped', 'no saved method has this token (deleted, or never saved)');
  const results = await Promise.all(refs.map((ref) => applyToMethod(update, ref, now)));
  if (results.includes('applied')) return outcome('applied');
  if (results.includes('applied-before')) return outcome('applied_before');
  if (results.includes('late')) return outcome('stale', 'older than the last update applied to its method');
  return outcome('skipped', 'the method was deleted');
}
