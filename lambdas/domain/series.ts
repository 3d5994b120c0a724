/**
 * Series (docs/decisions.md "Series"): the record and its rules. Plain functions, no AWS;
 * the dates and UTC slots come from series-schedule.ts. A series keeps a cursor, the next
 * occurrence whose group is not created yet, and the list of occurrences whose turn has come
 * (created or skipped); its payments are items of its own (store/series.ts), copied into each
 * occurrence's group. Records hold cents; the view (series-view.ts) holds amounts in the currency unit.
 */
import type { CreateGroupInput } from '#contract/schemas/groups';
import type { InlinePaymentInput } from '#contract/schemas/payments';
import type { CreateSeriesInput } from '#contract/schemas/series';
import { DEFAULT_NOTICE_DAYS, MAX_SERIES_OCCURRENCES, MAX_SERIES_START_YEARS } from '#contract/series';
import { ValidationError, type Problem } from '#shared/validation';
import { currentSlot, slotOf, type TransactionInitiator } from './groups';
import { fromCents, toCents, type Cents } from './money';
import { retryPolicyOf, type RetryPolicy } from './retries';
import {
  creationTime,
  latestStartDate,
  occurrenceSlot,
  occurrencesUntil,
  type Frequency,
  type OccurrenceSlot,
  type Recurrence,
} from './series-schedule';

export type SeriesStatus = 'active' | 'paused' | 'canceled' | 'completed';

/** An occurrence whose turn has come: its group created, or skipped (its slot passed first). */
export interface PastOccurrence {
  occurrence: number;
  status: 'created' | 'skipped';
  localDate: string;
  localTime: string;
  scheduleDate: string;
  scheduleHour: number;
  paymentGroupId?: string;
  createdAt: string;
  paymentsLeftOut?: number;
}

export interface Series extends Recurrence {
  seriesId: string;
  merchantId: string;
  status: SeriesStatus;
  frequency: Frequency;
  count?: number;
  endDate?: string;
  /** Occurrences in all: count, or those on or before endDate. */
  occurrenceCount: number;
  locationId: number;
  transactionInitiator: TransactionInitiator;
  surchargeCompliance: boolean;
  allowPartial: boolean;
  retryPolicy?: RetryPolicy;
  noticeDays: number;
  paymentCount: number;
  totalCents: Cents;
  /** The cursor: the next occurrence whose group is not created (occurrenceCount + 1 when none is left). */
  nextOccurrence: number;
  /** The occurrences before the cursor, oldest first. */
  occurrences: PastOccurrence[];
  /**
   * Set by a cancel until the series' pending groups are deleted: written with the canceled status,
   * so that a cancel that died half-way is finished by the due start (core/series.ts).
   */
  cancelPending?: boolean;
  dateCreated: string;
  lastUpdated: string;
  /** Moves on with every write: each holds only on the revision read (optimistic concurrency). */
  revision: number;
  /** The number of events announced for the series (absent: none). */
  eventSeq?: number;
}

/** One payment of a series, as every occurrence's group copies it (recurring). */
export interface SeriesPayment {
  /** Its position in the series (0-based): the groups list them in this order. */
  index: number;
  profileId: string;
  amountCents: Cents;
  orderId?: string;
  allowPartial?: boolean;
  sendEmailReceipt: boolean;
  sendPaymentScheduledNotification: boolean;
  /** An e-mail to the payor after each declined attempt (absent in series made before it was kept: false). */
  sendDeclineNotification?: boolean;
  customAttributes?: Record<string, string | number | boolean>;
  fees?: { name: string; amountCents: Cents }[];
  /**
   * `suspended`: left out of the occurrences' groups until it is given a new method (absent:
   * active). Its method was revoked (`authorization_revoked`).
   */
  status?: 'suspended';
  suspendedReason?: 'authorization_revoked';
}

/** The slot of occurrence `n` of a series. */
export const slotOfOccurrence = (series: Recurrence, n: number): OccurrenceSlot => occurrenceSlot(series, n);

/** A slot earlier than the current UTC hour: a group can no longer be made for it. */
const hasPassed = (slot: OccurrenceSlot, now: Date): boolean =>
  slotOf(slot.scheduleDate, slot.scheduleHour) < currentSlot(now);

/**
 * The number of occurrences of `count` or `endDate` (exactly one of them), or the problem with
 * them. `field` names the one in the problem.
 */
export function occurrenceCountOf(
  rule: Recurrence,
  end: { count?: number; endDate?: string },
): { count: number } | { problem: Problem } {
  if ((end.count === undefined) === (end.endDate === undefined)) {
    return { problem: { field: 'count', message: 'exactly one of count and endDate is required' } };
  }
  if (end.count !== undefined) return { count: end.count };
  const n = occurrencesUntil(rule, end.endDate!, MAX_SERIES_OCCURRENCES);
  if (n === 0) {
    return {
      problem: { field: 'endDate', message: `endDate ${end.endDate!} is before startDate ${rule.startDate}` },
    };
  }
  if (n > MAX_SERIES_OCCURRENCES) {
    return {
      problem: {
        field: 'endDate',
        message: `endDate ${end.endDate!} gives more than ${MAX_SERIES_OCCURRENCES} occurrences; end earlier`,
      },
    };
  }
  return { count: n };
}

function seriesPayment(input: InlinePaymentInput, index: number): SeriesPayment {
  return {
    index,
    profileId: input.profileId,
    amountCents: toCents(input.amount),
    ...(input.orderId !== undefined && { orderId: input.orderId }),
    ...(input.allowPartial !== undefined && { allowPartial: input.allowPartial }),
    sendEmailReceipt: input.sendEmailReceipt ?? false,
    sendPaymentScheduledNotification: input.sendPaymentScheduledNotification ?? false,
    sendDeclineNotification: input.sendDeclineNotification ?? false,
    ...(input.customAttributes !== undefined && {
      customAttributes: input.customAttributes as SeriesPayment['customAttributes'],
    }),
    ...(input.fees !== undefined && {
      fees: input.fees.map((f) => ({ name: f.name, amountCents: toCents(f.amount) })),
    }),
  };
}

/**
 * A new series and its payments, or a 400 listing every problem the schema could not see: count
 * and endDate, the first occurrence in the past or more than MAX_SERIES_START_YEARS ahead, a
 * payment that says it is not recurring. The time zone is kept as sent (the schema checked it).
 */
export function newSeries(
  input: CreateSeriesInput,
  merchantId: string,
  id: string,
  now: Date,
): { series: Series; payments: SeriesPayment[] } {
  const rule: Recurrence = {
    timeZone: input.timeZone,
    localHour: input.localHour,
    startDate: input.startDate,
    frequency: input.frequency,
    interval: input.interval,
  };
  const problems: Problem[] = [];
  const counted = occurrenceCountOf(rule, input);
  if ('problem' in counted) problems.push(counted.problem);
  const latest = latestStartDate(rule.timeZone, now, MAX_SERIES_START_YEARS);
  const first = slotOfOccurrence(rule, 1);
  if (rule.startDate > latest) {
    problems.push({
      field: 'startDate',
      message: `startDate ${rule.startDate} is too far ahead: a series starts at most ${MAX_SERIES_START_YEARS} years ahead (on or before ${latest} in ${rule.timeZone})`,
    });
  } else if (hasPassed(first, now)) {
    problems.push({
      field: 'startDate',
      message: `the first occurrence (${first.localTime}, ${slotOf(first.scheduleDate, first.scheduleHour)}:00Z) is in the past (now ${now.toISOString()})`,
    });
  }
  input.payments.forEach((p, i) => {
    if (p.recurring === false) {
      problems.push({
        field: `payments[${i}].recurring`,
        message: `payments[${i}].recurring must be true (every payment of a series is recurring)`,
      });
    }
  });
  if (problems.length > 0 || 'problem' in counted) throw new ValidationError(problems);
  const payments = input.payments.map(seriesPayment);
  const ts = now.toISOString();
  const series: Series = {
    seriesId: id,
    merchantId,
    status: 'active',
    ...rule,
    ...(input.count !== undefined && { count: input.count }),
    ...(input.endDate !== undefined && { endDate: input.endDate }),
    occurrenceCount: counted.count,
    locationId: input.locationId,
    transactionInitiator: input.transactionInitiator ?? 'Merchant',
    surchargeCompliance: input.surchargeCompliance ?? false,
    allowPartial: input.allowPartial ?? false,
    ...(input.retryPolicy !== undefined && { retryPolicy: retryPolicyOf(input.retryPolicy) }),
    noticeDays: input.noticeDays ?? DEFAULT_NOTICE_DAYS,
    paymentCount: payments.length,
    totalCents: centsOf(payments),
    nextOccurrence: 1,
    occurrences: [],
    dateCreated: ts,
    lastUpdated: ts,
    revision: 1,
    eventSeq: 1,
  };
  return { series, payments };
}

/** What these payments charge together (a series' total is that of its active payments). */
export const centsOf = (payments: readonly Pick<SeriesPayment, 'amountCents'>[]): Cents =>
  payments.reduce((sum, p) => sum + p.amountCents, 0);

/** An occurrence whose slot has passed, recorded as skipped. */
const skippedEntry = (slot: OccurrenceSlot, now: Date): PastOccurrence => ({
  occurrence: slot.occurrence,
  status: 'skipped',
  localDate: slot.localDate,
  localTime: slot.localTime,
  scheduleDate: slot.scheduleDate,
  scheduleHour: slot.scheduleHour,
  createdAt: now.toISOString(),
});

/** An occurrence whose group was created. */
export const createdEntry = (
  slot: OccurrenceSlot,
  paymentGroupId: string,
  paymentsLeftOut: number,
  now: Date,
): PastOccurrence => ({
  occurrence: slot.occurrence,
  status: 'created',
  localDate: slot.localDate,
  localTime: slot.localTime,
  scheduleDate: slot.scheduleDate,
  scheduleHour: slot.scheduleHour,
  paymentGroupId,
  createdAt: now.toISOString(),
  ...(paymentsLeftOut > 0 && { paymentsLeftOut }),
});

/** The series with `entry` recorded and its cursor moved past it; completed after the last. */
function withEntry(series: Series, entry: PastOccurrence): Series {
  const next: Series = {
    ...series,
    nextOccurrence: entry.occurrence + 1,
    occurrences: [...series.occurrences, entry],
  };
  if (next.status === 'active' && next.nextOccurrence > next.occurrenceCount) next.status = 'completed';
  return next;
}

/**
 * The series after its occurrence `slot` got its group: the next write of it (revision moved on;
 * `completed` after the last occurrence, which the caller announces).
 */
export function advanced(series: Series, entry: PastOccurrence): Series {
  return { ...withEntry(series, entry), revision: series.revision + 1 };
}

/**
 * An active series with every occurrence at the cursor whose slot has passed recorded as skipped
 * (the series was paused, the service could not run, a PUT moved the hour): such an occurrence is
 * never charged late. The series unchanged when none has.
 */
export function skipPassed(series: Series, now: Date): Series {
  let next = series;
  while (next.status === 'active' && next.nextOccurrence <= next.occurrenceCount) {
    const slot = slotOfOccurrence(next, next.nextOccurrence);
    if (!hasPassed(slot, now)) break;
    next = withEntry(next, skippedEntry(slot, now));
  }
  return next;
}

/** True when `series` changed status to completed from `before` (announced by series.updated). */
export const justCompleted = (before: Series, after: Series): boolean =>
  before.status !== 'completed' && after.status === 'completed';

/**
 * When the series next has work for the creation job (its place in the due index, an ISO time):
 * its cursor occurrence's creation time while active, a cancel not finished at once; none else.
 */
export function dueAt(series: Series): string | undefined {
  if (series.cancelPending) return series.lastUpdated;
  if (series.status !== 'active' || series.nextOccurrence > series.occurrenceCount) return undefined;
  return creationTime(slotOfOccurrence(series, series.nextOccurrence), series.noticeDays).toISOString();
}

/**
 * The create request of occurrence `slot`'s group: the series' settings at its slot, and a copy
 * of its payments, every one recurring. What group create takes, so the group is made by the one
 * group create path (core/groups.ts).
 */
export function occurrenceGroupInput(
  series: Series,
  slot: OccurrenceSlot,
  payments: readonly SeriesPayment[],
): CreateGroupInput {
  return {
    servicePayId: series.merchantId,
    scheduleDate: slot.scheduleDate,
    scheduleHour: slot.scheduleHour,
    locationId: series.locationId,
    transactionInitiator: series.transactionInitiator,
    surchargeCompliance: series.surchargeCompliance,
    allowPartial: series.allowPartial,
    ...(series.retryPolicy !== undefined && { retryPolicy: series.retryPolicy }),
    payments: payments.map((p) => ({
      profileId: p.profileId,
      amount: fromCents(p.amountCents),
      ...(p.orderId !== undefined && { orderId: p.orderId }),
      recurring: true,
      ...(p.allowPartial !== undefined && { allowPartial: p.allowPartial }),
      sendEmailReceipt: p.sendEmailReceipt,
      sendPaymentScheduledNotification: p.sendPaymentScheduledNotification,
      sendDeclineNotification: p.sendDeclineNotification ?? false,
      ...(p.customAttributes !== undefined && { customAttributes: p.customAttributes }),
      ...(p.fees !== undefined && {
        fees: p.fees.map((f) => ({ name: f.name, amount: fromCents(f.amountCents) })),
      }),
    })),
  };
}
