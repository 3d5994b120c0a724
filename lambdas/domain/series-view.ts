/**
 * A series as the API shows it and as its events carry it (docs/decisions.md "Series"): the
 * record of domain/series.ts with its next occurrences computed, amounts in the currency unit.
 */
import type { EventType } from '#contract/events';
import type {
  NextOccurrenceView,
  PastOccurrenceView,
  SeriesPaymentView,
  SeriesView,
} from '#contract/schemas/series';
import { NEXT_OCCURRENCES_SHOWN } from '#contract/series';
import { newEvent, type ServiceEvent } from './events';
import { fromCents } from './money';
import { retryPolicyOf } from './retries';
import { clock } from '#shared/clock';
import { skipPassed, slotOfOccurrence, type PastOccurrence, type Series, type SeriesPayment } from './series';
import { creationTime } from './series-schedule';

/**
 * The next occurrences (up to NEXT_OCCURRENCES_SHOWN) whose group is not created; none once
 * canceled or completed. Not those whose slot has passed (a paused series', or one the service
 * could not run): they are skipped, never charged late, once the series goes on.
 */
export function nextOccurrences(
  series: Series,
  limit: number = NEXT_OCCURRENCES_SHOWN,
): NextOccurrenceView[] {
  if (series.status === 'canceled' || series.status === 'completed') return [];
  const from = skipPassed({ ...series, status: 'active' }, clock.now()).nextOccurrence;
  const out: NextOccurrenceView[] = [];
  for (let n = from; n <= series.occurrenceCount && out.length < limit; n++) {
    const slot = slotOfOccurrence(series, n);
    out.push({
      occurrence: n,
      localDate: slot.localDate,
      localTime: slot.localTime,
      scheduleDate: slot.scheduleDate,
      scheduleHour: slot.scheduleHour,
      createAt: creationTime(slot, series.noticeDays).toISOString(),
    });
  }
  return out;
}

const pastOccurrenceView = (o: PastOccurrence): PastOccurrenceView => ({ ...o });

/** A payment of a series as the API shows it, amounts in the currency unit. */
export const seriesPaymentView = (p: SeriesPayment): SeriesPaymentView => ({
  index: p.index,
  profileId: p.profileId,
  amount: fromCents(p.amountCents),
  // Charged by the occurrences to come, unless suspended (its method was revoked).
  status: p.status ?? 'active',
  ...(p.suspendedReason !== undefined && { suspendedReason: p.suspendedReason }),
  ...(p.orderId !== undefined && { orderId: p.orderId }),
  ...(p.allowPartial !== undefined && { allowPartial: p.allowPartial }),
  sendEmailReceipt: p.sendEmailReceipt,
  sendPaymentScheduledNotification: p.sendPaymentScheduledNotification,
  sendDeclineNotification: p.sendDeclineNotification ?? false,
  ...(p.customAttributes !== undefined && { customAttributes: p.customAttributes }),
  ...(p.fees !== undefined && {
    fees: p.fees.map((f) => ({ name: f.name, amount: fromCents(f.amountCents) })),
  }),
});

/** A page of a series' payments as one series' answer shows it. */
export interface SeriesPaymentsPage {
  payments: SeriesPaymentView[];
  /** The index of the next payment, when more follow. */
  next?: number;
}

/**
 * The series as the API shows it; lists leave out `occurrences` (`full` false); one series' answers
 * add a page of its payments (`page`); events carry neither payments nor the page.
 */
export function seriesView(s: Series, full = true, page?: SeriesPaymentsPage): SeriesView {
  return {
    seriesId: s.seriesId,
    servicePayId: s.merchantId,
    status: s.status,
    timeZone: s.timeZone,
    localHour: s.localHour,
    startDate: s.startDate,
    frequency: s.frequency,
    interval: s.interval,
    ...(s.count !== undefined && { count: s.count }),
    ...(s.endDate !== undefined && { endDate: s.endDate }),
    occurrenceCount: s.occurrenceCount,
    locationId: s.locationId,
    transactionInitiator: s.transactionInitiator,
    surchargeCompliance: s.surchargeCompliance,
    allowPartial: s.allowPartial,
    ...(s.retryPolicy !== undefined && {
      // Both fields (a series stored before groups took a policy may lack the interval).
      retryPolicy: { ...retryPolicyOf(s.retryPolicy) },
    }),
    noticeDays: s.noticeDays,
    paymentCount: s.paymentCount,
    totalAmount: fromCents(s.totalCents),
    createdCount: s.occurrences.filter((o) => o.status === 'created').length,
    nextOccurrences: nextOccurrences(s),
    ...(full && { occurrences: s.occurrences.map(pastOccurrenceView) }),
    ...(page && { payments: page.payments }),
    ...(page?.next !== undefined && { paymentsNext: page.next }),
    dateCreated: s.dateCreated,
    lastUpdated: s.lastUpdated,
  };
}

/** The event announcing `type` of a series as it is after the change (its eventSeq the event's sequence). */
export const seriesEvent = (type: EventType, series: Series, now: Date): ServiceEvent<SeriesView> =>
  newEvent(
    {
      type,
      merchantId: series.merchantId,
      objectId: series.seriesId,
      sequence: series.eventSeq ?? 1,
      data: seriesView(series),
    },
    now,
  );
