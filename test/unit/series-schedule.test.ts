/**
 * When a series' occurrences fall (domain/series-schedule.ts): local dates (weekly and monthly,
 * intervals, month ends, leap years, endDate) and their UTC slots across daylight-saving changes
 * in zones whose changes go both ways.
 */
import {
  creationTime,
  occurrenceDate,
  occurrenceSlot,
  occurrencesUntil,
  type Recurrence,
} from '#domain/series-schedule';

const rule = (timeZone: string, startDate: string, localHour: number): Recurrence => ({
  timeZone,
  localHour,
  startDate,
  frequency: 'weekly',
  interval: 1,
});

/** The UTC instant and local time of the first occurrence of a weekly series starting that day. */
const slot = (timeZone: string, localDate: string, localHour: number) => {
  const s = occurrenceSlot(rule(timeZone, localDate, localHour), 1);
  return { utc: s.at.toISOString(), local: s.localTime, scheduleDate: s.scheduleDate, hour: s.scheduleHour };
};

describe('UTC slots across daylight-saving changes', () => {
  it.each([
    // America/New_York: EST (-5) until 2030-03-10 02:00, EDT (-4) until 2030-11-03 02:00.
    ['America/New_York', '2030-03-09', 17, '2030-03-09T22:00:00.000Z', '2030-03-09T17:00-05:00'],
    ['America/New_York', '2030-03-11', 17, '2030-03-11T21:00:00.000Z', '2030-03-11T17:00-04:00'],
    ['America/New_York', '2030-11-04', 17, '2030-11-04T22:00:00.000Z', '2030-11-04T17:00-05:00'],
    // Europe/London: GMT until 2030-03-31 01:00, BST until 2030-10-27 02:00.
    ['Europe/London', '2030-01-15', 17, '2030-01-15T17:00:00.000Z', '2030-01-15T17:00+00:00'],
    ['Europe/London', '2030-07-15', 17, '2030-07-15T16:00:00.000Z', '2030-07-15T17:00+01:00'],
    // Australia/Sydney, the other way: AEDT (+11) in January, AEST (+10) in July.
    ['Australia/Sydney', '2030-01-15', 17, '2030-01-15T06:00:00.000Z', '2030-01-15T17:00+11:00'],
    ['Australia/Sydney', '2030-07-15', 17, '2030-07-15T07:00:00.000Z', '2030-07-15T17:00+10:00'],
  ])('%s %s at %i:00 runs at %s', (zone, date, hour, utc, local) => {
    expect(slot(zone, date, hour)).toMatchObject({ utc, local });
  });

  it('a skipped local hour runs at the next hour that exists', () => {
    // New York 2030-03-10: 02:00 EST becomes 03:00 EDT.
    expect(slot('America/New_York', '2030-03-10', 2)).toEqual({
      utc: '2030-03-10T07:00:00.000Z',
      local: '2030-03-10T03:00-04:00',
      scheduleDate: '2030-03-10',
      hour: 7,
    });
    // London 2030-03-31: 01:00 GMT becomes 02:00 BST.
    expect(slot('Europe/London', '2030-03-31', 1)).toMatchObject({
      utc: '2030-03-31T01:00:00.000Z',
      local: '2030-03-31T02:00+01:00',
    });
    // Sydney 2030-10-06: 02:00 AEST becomes 03:00 AEDT (the UTC date is the day before).
    expect(slot('Australia/Sydney', '2030-10-06', 2)).toEqual({
      utc: '2030-10-05T16:00:00.000Z',
      local: '2030-10-06T03:00+11:00',
      scheduleDate: '2030-10-05',
      hour: 16,
    });
  });

  it('defect: a local hour skipped by a daylight-saving change that is not one hour long ran after the gap ended (luxon moves a time in a gap forward by the gap’s whole length): it runs when the gap ends', () => {
    // Antarctica/Troll 2030-03-31: 01:00 (+00) becomes 03:00 (+02); 02:00 was put at 04:00.
    expect(slot('Antarctica/Troll', '2030-03-31', 2)).toMatchObject({
      utc: '2030-03-31T01:00:00.000Z',
      local: '2030-03-31T03:00+02:00',
    });
    // Pacific/Chatham 2030-09-29: 02:45 (+12:45) becomes 03:45 (+13:45); 03:00 was put at 04:45.
    expect(slot('Pacific/Chatham', '2030-09-29', 3)).toMatchObject({
      utc: '2030-09-28T14:00:00.000Z',
      local: '2030-09-29T03:45+13:45',
    });
  });

  it('a repeated local hour runs at its first instance', () => {
    // New York 2030-11-03: 01:00-02:00 happens twice (EDT, then EST): the EDT one.
    expect(slot('America/New_York', '2030-11-03', 1)).toMatchObject({
      utc: '2030-11-03T05:00:00.000Z',
      local: '2030-11-03T01:00-04:00',
    });
    // The hour after the repeat is plain EST.
    expect(slot('America/New_York', '2030-11-03', 2).utc).toBe('2030-11-03T07:00:00.000Z');
    // London 2030-10-27: 01:00-02:00 twice (BST, then GMT): the BST one.
    expect(slot('Europe/London', '2030-10-27', 1)).toMatchObject({
      utc: '2030-10-27T00:00:00.000Z',
      local: '2030-10-27T01:00+01:00',
    });
    // Sydney 2030-04-07: 02:00-03:00 twice (AEDT, then AEST): the AEDT one.
    expect(slot('Australia/Sydney', '2030-04-07', 2)).toMatchObject({
      utc: '2030-04-06T15:00:00.000Z',
      local: '2030-04-07T02:00+11:00',
    });
  });

  it('a weekly series keeps its local hour across a change: the UTC hour moves', () => {
    const r = rule('America/New_York', '2030-03-02', 17);
    expect([1, 2, 3].map((n) => occurrenceSlot(r, n).at.toISOString())).toEqual([
      '2030-03-02T22:00:00.000Z',
      '2030-03-09T22:00:00.000Z',
      '2030-03-16T21:00:00.000Z',
    ]);
    const sydney = { ...rule('Australia/Sydney', '2030-03-31', 9), interval: 1 };
    expect([1, 2].map((n) => occurrenceSlot(sydney, n).at.toISOString())).toEqual([
      '2030-03-30T22:00:00.000Z',
      '2030-04-06T23:00:00.000Z',
    ]);
  });

  it('a zone whose offset is not whole hours runs at the first UTC hour at or after the local time', () => {
    // Asia/Kolkata (+05:30): 17:00 local is 11:30Z; groups run in whole UTC hours: 12:00Z.
    expect(slot('Asia/Kolkata', '2030-01-15', 17)).toMatchObject({
      utc: '2030-01-15T12:00:00.000Z',
      local: '2030-01-15T17:30+05:30',
    });
    // Lord Howe moves by 30 minutes: 02:00 is skipped to 02:30 (+11), then the next UTC hour.
    expect(slot('Australia/Lord_Howe', '2030-10-06', 2).utc).toBe('2030-10-05T16:00:00.000Z');
  });
});

describe('occurrence dates', () => {
  const monthly = (startDate: string, interval = 1) => ({
    startDate,
    frequency: 'monthly' as const,
    interval,
  });
  const dates = (r: Parameters<typeof occurrenceDate>[0], n: number) =>
    Array.from({ length: n }, (_, i) => occurrenceDate(r, i + 1));

  it('weekly with an interval', () => {
    expect(dates({ startDate: '2030-12-20', frequency: 'weekly', interval: 2 }, 3)).toEqual([
      '2030-12-20',
      '2031-01-03',
      '2031-01-17',
    ]);
  });

  it("monthly on the start date's day, clamped to short months, and back on the 31st after them", () => {
    expect(dates(monthly('2031-01-31'), 5)).toEqual([
      '2031-01-31',
      '2031-02-28',
      '2031-03-31',
      '2031-04-30',
      '2031-05-31',
    ]);
  });

  it('leap years: February 29th when there is one', () => {
    expect(dates(monthly('2032-01-31'), 3)).toEqual(['2032-01-31', '2032-02-29', '2032-03-31']);
    expect(dates(monthly('2032-02-29', 12), 5)).toEqual([
      '2032-02-29',
      '2033-02-28',
      '2034-02-28',
      '2035-02-28',
      '2036-02-29',
    ]);
    expect(dates(monthly('2031-11-30', 3), 2)).toEqual(['2031-11-30', '2032-02-29']);
  });

  it('monthly with an interval across a year end', () => {
    expect(dates(monthly('2030-11-15', 2), 3)).toEqual(['2030-11-15', '2031-01-15', '2031-03-15']);
  });

  it('endDate counts the occurrences on or before it (inclusive), no further than max + 1', () => {
    const r = monthly('2030-01-15');
    expect(occurrencesUntil(r, '2030-12-15', 120)).toBe(12);
    expect(occurrencesUntil(r, '2030-12-14', 120)).toBe(11);
    expect(occurrencesUntil(r, '2030-01-15', 120)).toBe(1);
    expect(occurrencesUntil(r, '2030-01-14', 120)).toBe(0);
    expect(occurrencesUntil(r, '2099-01-01', 120)).toBe(121);
    // A clamped date counts on its clamped day.
    expect(occurrencesUntil(monthly('2031-01-31'), '2031-02-28', 120)).toBe(2);
    expect(occurrencesUntil(monthly('2031-01-31'), '2031-02-27', 120)).toBe(1);
  });
});

describe('creation time', () => {
  it('is noticeDays whole days before the slot (at the slot when 0)', () => {
    const s = occurrenceSlot(rule('America/New_York', '2030-03-11', 17), 1);
    expect(creationTime(s, 3).toISOString()).toBe('2030-03-08T21:00:00.000Z');
    expect(creationTime(s, 0).toISOString()).toBe('2030-03-11T21:00:00.000Z');
  });
});
