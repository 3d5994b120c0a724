/**
 * A series' changes (docs/decisions.md "Series"): a PUT and a cancel, as plain functions on the
 * record of domain/series.ts. Each answers the series after the change, or `undefined` when
 * nothing changes (no write, no event).
 */
import type { UpdateSeriesInput } from '#contract/schemas/series';
import { BadRequestError } from '#shared/errors';
import { ValidationError } from '#shared/validation';
import { retryPolicyOf } from './retries';
import { occurrenceCountOf, skipPassed, type Series } from './series';
import type { Recurrence } from './series-schedule';

/** What a PUT can change, directly or through its rules (the cursor moves past skipped occurrences). */
const CHANGEABLE = [
  'timeZone',
  'localHour',
  'count',
  'endDate',
  'occurrenceCount',
  'locationId',
  'transactionInitiator',
  'surchargeCompliance',
  'allowPartial',
  'retryPolicy',
  'noticeDays',
  'status',
  'nextOccurrence',
] as const satisfies readonly (keyof Series)[];

/**
 * The series after a PUT, or `undefined` when nothing changes (no event). Changes apply to the
 * occurrences at and after the cursor; a canceled or completed series is 400.
 */
export function updatedSeries(series: Series, input: UpdateSeriesInput, now: Date): Series | undefined {
  if (series.status === 'canceled' || series.status === 'completed') {
    throw new BadRequestError(`series ${series.seriesId} is ${series.status}; it cannot change`);
  }
  if (input.count !== undefined && input.endDate !== undefined) {
    throw new ValidationError([{ field: 'count', message: 'count and endDate cannot both be given' }]);
  }
  const rule: Recurrence = {
    timeZone: input.timeZone ?? series.timeZone,
    localHour: input.localHour ?? series.localHour,
    startDate: series.startDate,
    frequency: series.frequency,
    interval: series.interval,
  };
  let end: { count?: number; endDate?: string } = { count: series.count, endDate: series.endDate };
  if (input.count !== undefined) end = { count: input.count };
  if (input.endDate !== undefined) end = { endDate: input.endDate };
  const counted = occurrenceCountOf(rule, end);
  if ('problem' in counted) throw new ValidationError([counted.problem]);
  const come = series.nextOccurrence - 1;
  if (counted.count < come) {
    const field = input.endDate !== undefined ? 'endDate' : 'count';
    throw new ValidationError([
      {
        field,
        message: `${field} would end the series before occurrence ${come}, whose turn has come; the series has at least ${come} occurrences`,
      },
    ]);
  }
  let next: Series = {
    ...series,
    ...rule,
    count: end.count,
    endDate: end.endDate,
    occurrenceCount: counted.count,
    locationId: input.locationId ?? series.locationId,
    transactionInitiator: input.transactionInitiator ?? series.transactionInitiator,
    surchargeCompliance: input.surchargeCompliance ?? series.surchargeCompliance,
    allowPartial: input.allowPartial ?? series.allowPartial,
    retryPolicy: input.retryPolicy !== undefined ? retryPolicyOf(input.retryPolicy) : series.retryPolicy,
    noticeDays: input.noticeDays ?? series.noticeDays,
    status: input.status ?? series.status,
  };
  if (next.count === undefined) delete next.count;
  if (next.endDate === undefined) delete next.endDate;
  if (next.retryPolicy === undefined) delete next.retryPolicy;
  if (next.nextOccurrence > next.occurrenceCount) next.status = 'completed';
  next = skipPassed(next, now);
  if (CHANGEABLE.every((k) => JSON.stringify(next[k]) === JSON.stringify(series[k]))) return undefined;
  return {
    ...next,
    lastUpdated: now.toISOString(),
    revision: series.revision + 1,
    eventSeq: (series.eventSeq ?? 0) + 1,
  };
}

/**
 * The series canceled: no more groups. Its pending groups are deleted next (core/series.ts);
 * `cancelPending` holds until then. `undefined` when it was canceled already.
 */
export function canceledSeries(series: Series, now: Date): Series | undefined {
  if (series.status === 'canceled') return undefined;
  return {
    ...series,
    status: 'canceled',
    cancelPending: true,
    lastUpdated: now.toISOString(),
    revision: series.revision + 1,
    eventSeq: (series.eventSeq ?? 0) + 1,
  };
}

/** The groups a cancel deletes: those of the created occurrences (the deleted and processed ones are left as they are). */
export const createdGroupIds = (series: Series): string[] =>
  series.occurrences.flatMap((o) => (o.paymentGroupId !== undefined ? [o.paymentGroupId] : []));
