/**
 * Series rules (domain/series.ts): what a create refuses, what a PUT changes, occurrences whose
 * slot passed, the due index's time, and an occurrence's group request.
 */
import fc from 'fast-check';
import type { CreateSeriesInput } from '#contract/schemas/series';
import {
  advanced,
  createdEntry,
  dueAt,
  newSeries,
  occurrenceGroupInput,
  skipPassed,
  slotOfOccurrence,
} from '#domain/series';
import { canceledSeries, updatedSeries } from '#domain/series-changes';
import { nextOccurrences, seriesView } from '#domain/series-view';
import { ValidationError } from '#shared/validation';
import { BadRequestError } from '#shared/errors';

const MID = '32350000001';
const PROFILE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa_bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const NOW = new Date('2030-09-01T12:00:00.000Z');

const input = (over: Partial<CreateSeriesInput> = {}): CreateSeriesInput => ({
  timeZone: 'America/New_York',
  localHour: 17,
  startDate: '2030-09-15',
  frequency: 'monthly',
  interval: 1,
  count: 10,
  locationId: 42,
  payments: [{ profileId: PROFILE, amount: 450.25 }],
  ...over,
});

const problems = (fn: () => unknown): readonly { field: string }[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.problems;
    throw error;
  }
  throw new Error('no ValidationError');
};

describe('newSeries', () => {
  it('makes an active series with the defaults, its cursor at occurrence 1', () => {
    const { series, payments } = newSeries(input(), MID, 'sid', NOW);
    expect(series).toMatchObject({
      status: 'active',
      timeZone: 'America/New_York',
      occurrenceCount: 10,
      noticeDays: 3,
      transactionInitiator: 'Merchant',
      nextOccurrence: 1,
      occurrences: [],
      totalCents: 45025,
      revision: 1,
      eventSeq: 1,
    });
    expect(payments).toEqual([
      {
        index: 0,
        profileId: PROFILE,
        amountCents: 45025,
        sendEmailReceipt: false,
        sendPaymentScheduledNotification: false,
        sendDeclineNotification: false,
      },
    ]);
  });

  it('counts the occurrences of an endDate', () => {
    const { series } = newSeries(input({ count: undefined, endDate: '2031-06-15' }), MID, 'sid', NOW);
    expect(series.occurrenceCount).toBe(10);
    expect(series.endDate).toBe('2031-06-15');
    expect(series).not.toHaveProperty('count');
  });

  it('lists every problem: count and endDate together, a first occurrence in the past, a payment not recurring', () => {
    const found = problems(() =>
      newSeries(
        input({
          endDate: '2031-06-15',
          startDate: '2030-08-15',
          payments: [
            { profileId: PROFILE, amount: 1 },
            { profileId: PROFILE, amount: 2, recurring: false },
          ],
        }),
        MID,
        'sid',
        NOW,
      ),
    );
    expect(found.map((p) => p.field)).toEqual(['count', 'startDate', 'payments[1].recurring']);
  });

  it('refuses neither count nor endDate, an endDate before the start, and more than 120 occurrences', () => {
    expect(problems(() => newSeries(input({ count: undefined }), MID, 's', NOW))[0]!.field).toBe('count');
    expect(
      problems(() => newSeries(input({ count: undefined, endDate: '2030-09-14' }), MID, 's', NOW))[0]!.field,
    ).toBe('endDate');
    expect(
      problems(() =>
        newSeries(input({ count: undefined, endDate: '2045-01-01', frequency: 'weekly' }), MID, 's', NOW),
      )[0]!.field,
    ).toBe('endDate');
  });

  it('accepts a first occurrence in the current UTC hour', () => {
    // 2030-09-01 08:00 New York is 12:00Z: the current hour.
    expect(() => newSeries(input({ startDate: '2030-09-01', localHour: 8 }), MID, 's', NOW)).not.toThrow();
  });
});

describe('time zone names', () => {
  // The runtime's zone data resolves each of these to an older name (Asia/Calcutta, Europe/Kiev,
  // America/Godthab, Pacific/Enderbury): the caller's name is the one kept and shown.
  const renamed = ['Asia/Kolkata', 'Europe/Kyiv', 'America/Nuuk', 'Pacific/Kanton'];

  it.each(renamed)('defect: Asia/Kolkata comes back as Asia/Calcutta (%s is kept as sent)', (zone) => {
    const { series } = newSeries(input({ timeZone: zone }), MID, 'sid', NOW);
    expect(series.timeZone).toBe(zone);
    expect(seriesView(series).timeZone).toBe(zone);
    const changed = updatedSeries(newSeries(input(), MID, 'sid', NOW).series, { timeZone: zone }, NOW)!;
    expect(changed.timeZone).toBe(zone);
  });

  it('keeps the letter case sent, and the slots follow the zone all the same', () => {
    const { series } = newSeries(input({ timeZone: 'asia/kolkata', localHour: 17 }), MID, 'sid', NOW);
    expect(series.timeZone).toBe('asia/kolkata');
    // 17:00 IST (+05:30) is 11:30Z: the group runs at 12:00Z.
    expect(nextOccurrences(series)[0]).toMatchObject({
      localTime: '2030-09-15T17:30+05:30',
      scheduleDate: '2030-09-15',
      scheduleHour: 12,
    });
  });
});

describe('how far ahead a series may start', () => {
  it('defect: a series may start in the year 9999 and then schedules +010000-01-06', () => {
    const found = problems(() =>
      newSeries(input({ startDate: '9999-12-30', frequency: 'weekly', count: 2 }), MID, 'sid', NOW),
    );
    expect(found).toEqual([
      {
        field: 'startDate',
        message: expect.stringContaining('at most 5 years ahead') as string,
      },
    ]);
  });

  it('accepts a start exactly 5 years after today in the series’ zone, and refuses the day after', () => {
    // NOW is 2030-09-01 08:00 in New York.
    expect(() => newSeries(input({ startDate: '2035-09-01' }), MID, 's', NOW)).not.toThrow();
    expect(problems(() => newSeries(input({ startDate: '2035-09-02' }), MID, 's', NOW))).toEqual([
      { field: 'startDate', message: expect.stringContaining('2035-09-01') as string },
    ]);
  });

  it('every date of an accepted series is a valid yyyy-MM-dd, to its last occurrence', () => {
    const isoDate = /^\d{4}-\d{2}-\d{2}$/;
    const zones = ['America/New_York', 'Asia/Kolkata', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC'];
    fc.assert(
      fc.property(
        fc.record({
          days: fc.integer({ min: 0, max: 5 * 366 }),
          zone: fc.constantFrom(...zones),
          localHour: fc.integer({ min: 0, max: 23 }),
          frequency: fc.constantFrom('weekly' as const, 'monthly' as const),
          interval: fc.integer({ min: 1, max: 12 }),
          count: fc.integer({ min: 1, max: 120 }),
        }),
        ({ days, zone, localHour, frequency, interval, count }) => {
          const startDate = new Date(NOW.getTime() + days * 86_400_000).toISOString().slice(0, 10);
          let made;
          try {
            made = newSeries(
              input({ startDate, timeZone: zone, localHour, frequency, interval, count }),
              MID,
              's',
              NOW,
            );
          } catch (error) {
            // Only the edges: a first slot in the past, or a start past 5 years in the zone.
            if (error instanceof ValidationError) return;
            throw error;
          }
          const { series } = made;
          for (const n of [1, Math.ceil(count / 2), count]) {
            const slot = slotOfOccurrence(series, n);
            expect(slot.localDate).toMatch(isoDate);
            expect(slot.scheduleDate).toMatch(isoDate);
            expect(slot.localTime).toMatch(/^\d{4}-/);
          }
          for (const o of seriesView(series).nextOccurrences) {
            expect(o.localDate).toMatch(isoDate);
            expect(o.scheduleDate).toMatch(isoDate);
            expect(o.createAt).toMatch(/^\d{4}-/);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the cursor', () => {
  const base = () => newSeries(input({ count: 3 }), MID, 'sid', NOW).series;

  it('moves past each created occurrence; the last one completes the series', () => {
    let s = base();
    for (let n = 1; n <= 3; n++) {
      const slot = slotOfOccurrence(s, n);
      s = advanced(s, createdEntry(slot, `g${n}`, 0, NOW));
    }
    expect(s).toMatchObject({ status: 'completed', nextOccurrence: 4, revision: 4 });
    expect(s.occurrences.map((o) => o.paymentGroupId)).toEqual(['g1', 'g2', 'g3']);
    expect(nextOccurrences(s)).toEqual([]);
    expect(dueAt(s)).toBeUndefined();
  });

  it('records occurrences whose slot has passed as skipped, never charged late', () => {
    const later = new Date('2030-10-20T00:00:00.000Z');
    const s = skipPassed(base(), later);
    expect(s.nextOccurrence).toBe(3);
    expect(s.occurrences.map((o) => [o.occurrence, o.status])).toEqual([
      [1, 'skipped'],
      [2, 'skipped'],
    ]);
    expect(skipPassed(s, later)).toBe(s);
  });

  it('is due at its next occurrence’s creation time while active; not while paused', () => {
    const s = base();
    expect(dueAt(s)).toBe('2030-09-12T21:00:00.000Z');
    expect(dueAt({ ...s, status: 'paused' })).toBeUndefined();
    expect(dueAt({ ...s, status: 'canceled', cancelPending: true })).toBe(s.lastUpdated);
  });

  it('shows the next three occurrences in local time and UTC (the hour moves in November)', () => {
    expect(nextOccurrences(base()).map((o) => [o.localTime, o.scheduleDate, o.scheduleHour])).toEqual([
      ['2030-09-15T17:00-04:00', '2030-09-15', 21],
      ['2030-10-15T17:00-04:00', '2030-10-15', 21],
      ['2030-11-15T17:00-05:00', '2030-11-15', 22],
    ]);
  });
});

describe('updatedSeries', () => {
  const base = () => newSeries(input(), MID, 'sid', NOW).series;

  it('changes the occurrences not created yet; nothing changed is undefined (no event)', () => {
    const s = base();
    expect(updatedSeries(s, { localHour: 17 }, NOW)).toBeUndefined();
    const next = updatedSeries(s, { localHour: 9, timeZone: 'Europe/London' }, NOW)!;
    expect(next).toMatchObject({ localHour: 9, timeZone: 'Europe/London', revision: 2, eventSeq: 2 });
    expect(nextOccurrences(next)[0]).toMatchObject({ scheduleHour: 8, localTime: '2030-09-15T09:00+01:00' });
  });

  it('pauses and resumes', () => {
    const paused = updatedSeries(base(), { status: 'paused' }, NOW)!;
    expect(paused.status).toBe('paused');
    expect(updatedSeries(paused, { status: 'active' }, NOW)!.status).toBe('active');
  });

  it('switches between count and endDate', () => {
    const s = updatedSeries(base(), { endDate: '2030-12-31' }, NOW)!;
    expect(s).toMatchObject({ endDate: '2030-12-31', occurrenceCount: 4 });
    expect(s).not.toHaveProperty('count');
  });

  it('refuses an end before an occurrence whose turn has come, and both count and endDate', () => {
    const s = advanced(base(), createdEntry(slotOfOccurrence(base(), 1), 'g1', 0, NOW));
    const s2 = advanced(s, createdEntry(slotOfOccurrence(s, 2), 'g2', 0, NOW));
    expect(problems(() => updatedSeries(s2, { count: 1 }, NOW))[0]!.field).toBe('count');
    expect(problems(() => updatedSeries(s2, { count: 2, endDate: '2031-01-01' }, NOW))[0]!.field).toBe(
      'count',
    );
    // Exactly the occurrences created: the series completes.
    expect(updatedSeries(s2, { count: 2 }, NOW)!.status).toBe('completed');
  });

  it('refuses to change a canceled series', () => {
    const canceled = canceledSeries(base(), NOW)!;
    expect(canceled).toMatchObject({ status: 'canceled', cancelPending: true });
    expect(canceledSeries(canceled, NOW)).toBeUndefined();
    expect(() => updatedSeries(canceled, { localHour: 3 }, NOW)).toThrow(BadRequestError);
  });
});

describe('an occurrence’s group', () => {
  it('is the group create request at the slot, every payment recurring', () => {
    const { series, payments } = newSeries(
      input({
        payments: [{ profileId: PROFILE, amount: 10.1, orderId: 'T-1', fees: [{ name: 'f', amount: 1 }] }],
      }),
      MID,
      'sid',
      NOW,
    );
    expect(occurrenceGroupInput(series, slotOfOccurrence(series, 3), payments)).toEqual({
      servicePayId: MID,
      scheduleDate: '2030-11-15',
      scheduleHour: 22,
      locationId: 42,
      transactionInitiator: 'Merchant',
      surchargeCompliance: false,
      allowPartial: false,
      payments: [
        {
          profileId: PROFILE,
          amount: 10.1,
          orderId: 'T-1',
          recurring: true,
          sendEmailReceipt: false,
          sendPaymentScheduledNotification: false,
          sendDeclineNotification: false,
          fees: [{ name: 'f', amount: 1 }],
        },
      ],
    });
  });

  it("carries the series' retry policy, the interval's default filled in (shown so too)", () => {
    const { series, payments } = newSeries(input({ retryPolicy: { maxRetries: 3 } }), MID, 'sid', NOW);
    expect(occurrenceGroupInput(series, slotOfOccurrence(series, 1), payments).retryPolicy).toEqual({
      maxRetries: 3,
      intervalHours: 24,
    });
    expect(seriesView(series).retryPolicy).toEqual({ maxRetries: 3, intervalHours: 24 });
  });

  it('the view leaves occurrences out of lists', () => {
    const { series } = newSeries(input(), MID, 'sid', NOW);
    expect(seriesView(series)).toHaveProperty('occurrences', []);
    expect(seriesView(series, false)).not.toHaveProperty('occurrences');
    expect(seriesView(series).totalAmount).toBe(450.25);
  });
});
