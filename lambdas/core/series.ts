/**
 * Series as the API and the creation jobs see them (docs/decisions.md "Series"): create (idempotent
 * on request), read, change, pause and resume, cancel, and the creation of occurrences' groups.
 *
 * An occurrence's group is made by the one group create path (core/groups.ts createGroup), with an
 * id derived from the series and the occurrence, and written only in the same transaction as the
 * series' advance (its cursor moved past the occurrence, on the revision read). So a group of a
 * series exists exactly when its series says so, whatever runs at once: two runs creating the same
 * occurrence, a PUT or a cancel meanwhile. A create that dies half-way leaves a `creating` group,
 * which the sweeper removes; the series' cursor has not moved, so a later run creates it again.
 */
import { MAX_PAYMENTS_PER_CREATE } from '#contract/limits';
import type { CreateSeriesInput, UpdateSeriesInput } from '#contract/schemas/series';
import { nextSequence } from '#domain/events';
import {
  advanced,
  createdEntry,
  justCompleted,
  newSeries,
  occurrenceGroupInput,
  skipPassed,
  slotOfOccurrence,
  type Series,
} from '#domain/series';
import { canceledSeries, createdGroupIds, updatedSeries } from '#domain/series-changes';
import { seriesEvent } from '#domain/series-view';
import { creationTime, type OccurrenceSlot } from '#domain/series-schedule';
import { conditionOutcome, isConditionFailure, isConflict } from '#shared/ddb';
import { BadRequestError, SeriesNotFoundError } from '#shared/errors';
import { newId, occurrenceGroupId } from '#shared/ids';
import { logger } from '#shared/logger';
import { MAX_ATTEMPTS, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { groupStore } from '#store/groups';
import type { Merchant } from '#store/merchants';
import { READ_LIMITS } from '#store/read-limits';
import { seriesStore, seriesWriteItems } from '#store/series';
import { createGroup, deleteGroup } from './groups';
import { findMerchant } from './merchants';
import { profilesSaved, resolveProfiles, writingPayments } from './profiles';
import { withNewMethods } from './series-methods';
import { clock } from '#shared/clock';

/** The series if it exists and belongs to this merchant; 404 otherwise. */
export async function requireSeries(seriesId: string, merchantId: string): Promise<Series> {
  const series = await seriesStore().get(seriesId);
  if (!series || series.merchantId !== merchantId) throw new SeriesNotFoundError(seriesId);
  return series;
}

/**
 * A create request starts no occurrence's group after this long: one (at most 10,000 payments)
 * takes about 15 s, and the function's timeout is 27 s (CREATE_GROUP_TIMEOUT_SECONDS).
 */
const REQUEST_CREATION_MS = 10_000;

/** What one run of occurrence creation did. */
export interface CreationReport {
  created: { seriesId: string; occurrence: number; paymentGroupId: string }[];
  /** Occurrences skipped: their slot had passed. */
  skipped: number;
  /** Cancels finished (their pending groups deleted). */
  canceled: number;
  /** Series left for a later run: the time or payment budget ran out. */
  deferred: number;
  /** Series whose next group is being created by another run (or abandoned: the sweeper removes it). */
  busy: number;
  /** Series whose work failed (logged; a later run tries again). */
  failed: number;
}

const emptyReport = (): CreationReport => ({
  created: [],
  skipped: 0,
  canceled: 0,
  deferred: 0,
  busy: 0,
  failed: 0,
});

/** Bounds of one run of occurrence creation. */
interface CreationLimits {
  /** Only occurrences whose group is due to be created before this time. */
  horizon: Date;
  /** No group is started after this (epoch ms). */
  deadline: number;
  /** Payments the run may still write, when bounded (a create request's); moved down as it writes. */
  payments?: { left: number };
}

/**
 * A new series with its payments, announced by `series.created`, all or nothing; then the groups of
 * its occurrences already due (within the request's budget: the due start makes any others within
 * a minute). Keyed (the group create's rules, docs/decisions.md "Idempotent group create"; the
 * route builder runs the key), the series' id is the key's: a retry that resumes a create which
 * died half-way answers the series if it was committed, else removes what was written ahead and
 * creates it again.
 */
export async function createSeries(
  input: CreateSeriesInput,
  merchant: Merchant,
  now: Date,
  keyed?: { resourceId: string; resumed: boolean },
): Promise<Series> {
  const seriesId = keyed?.resourceId ?? newId();
  await createOnce(seriesId, keyed?.resumed ?? false, input, merchant, now);
  return createdSeries(seriesId, merchant, now);
}

/**
 * A created series as it is now, with the groups of its occurrences already due created first
 * (what a create answers, and a replay of its key).
 */
export async function createdSeries(seriesId: string, merchant: Merchant, now: Date): Promise<Series> {
  const series = await requireSeries(seriesId, merchant.merchantId);
  return createDueNow(series, now, MAX_PAYMENTS_PER_CREATE - series.paymentCount);
}

async function createOnce(
  seriesId: string,
  resumed: boolean,
  input: CreateSeriesInput,
  merchant: Merchant,
  now: Date,
): Promise<void> {
  const store = seriesStore();
  if (resumed) {
    // The first attempt died: after its commit (the series stands), or before (start over).
    if (await store.get(seriesId)) return;
    await store.discardCreate(seriesId, now); // CreateInProgressError while it may be writing
  }
  const { series, payments } = newSeries(input, merchant.merchantId, seriesId, now);
  await resolveProfiles(
    merchant.merchantId,
    payments.map((p) => p.profileId),
    (i) => `payments[${i}].profileId`,
  );
  await writingPayments(payments, () =>
    store.create(series, payments, seriesEvent('series.created', series, now)),
  );
}

/**
 * Creates the groups of the series' occurrences that are due now, while the request's budget
 * allows (payments written, time); returns the series as it is then.
 */
async function createDueNow(series: Series, now: Date, paymentsLeft: number): Promise<Series> {
  if (series.status !== 'active') return series;
  const limits: CreationLimits = {
    horizon: new Date(clock.nowMs() + 1),
    deadline: now.getTime() + REQUEST_CREATION_MS,
    payments: { left: paymentsLeft },
  };
  await advanceSeries(series.seriesId, limits, emptyReport(), merchantLookup());
  return (await seriesStore().get(series.seriesId)) ?? series;
}

/**
 * Changes the fields present, announced by `series.updated` (pause, resume and the rest); then the
 * groups of the occurrences due now. The write holds only on the revision read: a concurrent
 * change (another PUT, the job's advance) makes this one read again and apply its fields to it.
 */
export async function updateSeries(
  seriesId: string,
  merchantId: string,
  input: UpdateSeriesInput,
  now: Date,
): Promise<Series> {
  const store = seriesStore();
  const written = await withOptimisticRetry(
    async () => {
      const series = await requireSeries(seriesId, merchantId);
      if (input.payments !== undefined) return withNewMethods(series, input, now);
      const next = updatedSeries(series, input, now);
      if (!next) return series;
      return (await store.write(next, series, seriesEvent('series.updated', next, now))) ? next : undefined;
    },
    { resource: 'this series' },
  );
  return createDueNow(written, now, MAX_PAYMENTS_PER_CREATE);
}

/**
 * Cancels the series, announced by `series.canceled`: no more groups (a group's create commits only
 * with its series active at the revision read), and its pending groups deleted (each announced by
 * `group.deleted`; processing and processed groups stay). The canceled status is written with
 * `cancelPending`, so that a cancel that dies before its deletions end is finished by the due
 * sweep. A canceled series: nothing to do.
 */
export async function cancelSeries(seriesId: string, merchantId: string, now: Date): Promise<void> {
  const store = seriesStore();
  const canceled = await withOptimisticRetry(
    async () => {
      const series = await requireSeries(seriesId, merchantId);
      const next = canceledSeries(series, now);
      if (!next) return series;
      return (await store.write(next, series, seriesEvent('series.canceled', next, now))) ? next : undefined;
    },
    { resource: 'this series' },
  );
  if (canceled.cancelPending) await finishCancel(canceled, now);
}

/** Deletes a canceled series' pending groups, then clears `cancelPending`. */
async function finishCancel(series: Series, now: Date): Promise<void> {
  for (const groupId of createdGroupIds(series)) {
    const group = await groupStore().getGroup(groupId);
    if (group?.status !== 'pending') continue;
    try {
      await deleteGroup(groupId, series.merchantId, now);
    } catch (error) {
      // Claimed for processing between the read and the delete: it is processed, as a group
      // processing at the cancel would be.
      if (!(error instanceof BadRequestError)) throw error;
      logger.warn('a group of a canceled series was being processed; it stays', {
        seriesId: series.seriesId,
        paymentGroupId: groupId,
      });
    }
  }
  await withOptimisticRetry(
    async () => {
      const current = await seriesStore().get(series.seriesId);
      if (!current?.cancelPending) return true;
      const { cancelPending: _, ...rest } = current;
      return (await seriesStore().write({ ...rest, revision: current.revision + 1 }, current)) || undefined;
    },
    { resource: 'this series' },
  );
}

/**
 * Creates the groups of every series' occurrences due before `limits.horizon`, finishes cancels a
 * crash left half-done, and records occurrences whose slot has passed as skipped: the daily job,
 * the hourly tick and the due start, each with its horizon and its time budget. Bounded and
 * resumable: the due index and each series' cursor are the cursor of the work; what the budget
 * leaves is found again by the next run. Safe to run repeatedly and concurrently.
 */
export async function createDueOccurrences(limits: CreationLimits): Promise<CreationReport> {
  const report = emptyReport();
  const ids = await seriesStore().due(limits.horizon.toISOString(), READ_LIMITS.seriesDue);
  const merchants = merchantLookup();
  for (const [i, seriesId] of ids.entries()) {
    if (clock.nowMs() > limits.deadline) {
      report.deferred += ids.length - i;
      break;
    }
    try {
      await advanceSeries(seriesId, limits, report, merchants);
    } catch (error) {
      report.failed++;
      logger.error('could not create the occurrences of a series', { seriesId, error });
    }
  }
  if (report.created.length > 0 || report.deferred > 0 || report.failed > 0) {
    logger.info('series occurrences', { ...report, created: report.created.length });
  }
  return report;
}

type MerchantLookup = (merchantId: string) => Promise<Merchant | undefined>;

/** The merchants of one run, each read once. */
function merchantLookup(): MerchantLookup {
  const cache = new Map<string, Promise<Merchant | undefined>>();
  return (merchantId) => {
    let found = cache.get(merchantId);
    if (!found) cache.set(merchantId, (found = findMerchant(merchantId)));
    return found;
  };
}

/**
 * The work of one series, occurrence after occurrence, until none is due before the horizon or a
 * budget runs out: a cancel to finish, occurrences whose slot passed to skip, groups to create.
 */
async function advanceSeries(
  seriesId: string,
  limits: CreationLimits,
  report: CreationReport,
  merchants: MerchantLookup,
): Promise<void> {
  const store = seriesStore();
  for (let lost = 0; lost < MAX_ATTEMPTS;) {
    const series = await store.get(seriesId);
    if (!series) return;
    const now = clock.now();
    if (series.cancelPending) {
      await finishCancel(series, now);
      report.canceled++;
      return;
    }
    const skipped = skipPassed(series, now);
    if (skipped !== series) {
      const completes = justCompleted(series, skipped);
      const next: Series = {
        ...skipped,
        revision: series.revision + 1,
        ...(completes && { eventSeq: nextSequence(series.eventSeq) }),
      };
      const event = completes ? seriesEvent('series.updated', next, now) : undefined;
      if (await store.write(next, series, event))
        report.skipped += next.occurrences.length - series.occurrences.length;
      else lost++;
      continue;
    }
    if (series.status !== 'active' || series.nextOccurrence > series.occurrenceCount) return;
    const slot = slotOfOccurrence(series, series.nextOccurrence);
    if (creationTime(slot, series.noticeDays) >= limits.horizon) return;
    if (clock.nowMs() > limits.deadline || (limits.payments && limits.payments.left < series.paymentCount)) {
      report.deferred++;
      return;
    }
    const merchant = await merchants(series.merchantId);
    if (!merchant) {
      logger.error('the merchant of a series is not registered; its occurrences wait', {
        seriesId,
        merchantId: series.merchantId,
      });
      report.failed++;
      return;
    }
    const outcome = await createOccurrence(series, slot, merchant, now);
    if (outcome === 'busy') {
      report.busy++;
      return;
    }
    if (outcome === 'lost') {
      lost++;
      continue;
    }
    if (limits.payments) limits.payments.left -= series.paymentCount;
    report.created.push({ seriesId, occurrence: slot.occurrence, paymentGroupId: outcome.paymentGroupId });
  }
  logger.warn('a series kept changing while its occurrences were created; a later run goes on', { seriesId });
  report.deferred++;
}

/**
 * Creates the group of the series' cursor occurrence together with the series' advance: `created`,
 * `lost` (the series changed since it was read, or a payment's method or the hour changed: read
 * again) or `busy` (the group exists while the series has not moved: another run is creating it,
 * or died doing so and the sweeper will remove it).
 */
async function createOccurrence(
  series: Series,
  slot: OccurrenceSlot,
  merchant: Merchant,
  now: Date,
): Promise<{ paymentGroupId: string } | 'lost' | 'busy'> {
  const payments = await seriesStore().payments(series.seriesId);
  const saved = await profilesSaved(
    series.merchantId,
    payments.map((p) => p.profileId),
  );
  // A payment suspended (its method revoked) is left out until it is given a new method.
  const kept = payments.filter((p, i) => saved[i] && p.status !== 'suspended');
  const paymentGroupId = occurrenceGroupId(series.seriesId, slot.occurrence);
  const next = advanced(series, createdEntry(slot, paymentGroupId, payments.length - kept.length, now));
  const completes = justCompleted(series, next);
  if (completes) next.eventSeq = nextSequence(series.eventSeq);
  const event = completes ? seriesEvent('series.updated', next, now) : undefined;
  const advance = (tableName: string) => seriesWriteItems(tableName, next, series, event);
  try {
    await createGroup(occurrenceGroupInput(series, slot, kept), merchant, now, undefined, {
      groupId: paymentGroupId,
      occurrenceOf: { seriesId: series.seriesId, occurrence: slot.occurrence, advance },
    });
  } catch (error) {
    if (error instanceof BadRequestError) {
      // A saved method deleted since it was checked, or the slot's hour just passed: read again
      // (the method's payment is left out, the passed occurrence skipped).
      logger.warn('an occurrence was refused; reading the series again', {
        seriesId: series.seriesId,
        occurrence: slot.occurrence,
        reason: error.message,
      });
      return 'lost';
    }
    if (isConflict(error)) return 'lost';
    if (!isConditionFailure(error)) conditionOutcome(error, [['any', true]]);
    const current = await seriesStore().get(series.seriesId);
    return current?.revision === series.revision ? 'busy' : 'lost';
  }
  if (kept.length < payments.length) {
    logger.warn('payments of a series left out of an occurrence: their saved method is gone', {
      seriesId: series.seriesId,
      occurrence: slot.occurrence,
      paymentsLeftOut: payments.length - kept.length,
    });
  }
  logger.info('occurrence group created', {
    seriesId: series.seriesId,
    occurrence: slot.occurrence,
    paymentGroupId,
  });
  return { paymentGroupId };
}
