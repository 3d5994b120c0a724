/**
 * When a series' occurrences fall (docs/decisions.md "Series: the time rules"): plain functions on
 * luxon and the zone data it reads (the runtime's ICU), never an offset computed by hand.
 *
 * - Occurrence n (from 1) falls on a local date: weekly, startDate + (n − 1) × interval weeks;
 *   monthly, startDate + (n − 1) × interval months, on startDate's day or the month's last day
 *   when it has fewer (always counted from startDate, so a 31st comes back after a short month).
 * - Its slot is that date at localHour in the zone, with the zone's rules for that date: a local
 *   hour skipped by a daylight-saving change runs at the next hour that exists; a repeated hour at
 *   its first instance; and since groups run in whole UTC hours, a zone whose offset is not whole
 *   hours runs at the first UTC hour at or after the local time.
 */
import { DateTime } from 'luxon';

export type Frequency = 'weekly' | 'monthly';

/** What the dates and slots of a series depend on. */
export interface Recurrence {
  timeZone: string;
  localHour: number;
  /** The first occurrence's local date (yyyy-MM-dd). */
  startDate: string;
  frequency: Frequency;
  interval: number;
}

/** An occurrence's slot: its local date and time, and the UTC hour its group runs in. */
export interface OccurrenceSlot {
  occurrence: number;
  /** yyyy-MM-dd in the series' zone. */
  localDate: string;
  /** The slot in the zone with its offset, e.g. `2030-03-10T03:00-04:00`. */
  localTime: string;
  /** The group's UTC date (yyyy-MM-dd) and hour. */
  scheduleDate: string;
  scheduleHour: number;
  /** The slot's start (UTC). */
  at: Date;
}

/** A calendar date with no zone (date arithmetic only). */
const calendarDate = (isoDate: string): DateTime => DateTime.fromISO(isoDate, { zone: 'utc' });

/** The local date (yyyy-MM-dd) of occurrence `n` (from 1). */
export function occurrenceDate(
  rule: Pick<Recurrence, 'startDate' | 'frequency' | 'interval'>,
  n: number,
): string {
  const start = calendarDate(rule.startDate);
  const steps = (n - 1) * rule.interval;
  // luxon adds months keeping the day, or the month's last day when it has fewer days.
  const date = rule.frequency === 'weekly' ? start.plus({ weeks: steps }) : start.plus({ months: steps });
  return date.toISODate()!;
}

/** Daylight-saving changes move clocks by at most two hours (Antarctica/Troll); most by one, Lord Howe by 30 minutes. */
const EARLIER_INSTANCES_MINUTES = [30, 60, 90, 120];

/**
 * When the daylight-saving gap that holds a skipped local time ends (the clocks jump), given
 * luxon's instant for that time: luxon moves it forward by the gap's whole length, so the end is
 * at most that long (two hours) before it. The first minute under the later offset.
 */
function gapEnd(moved: DateTime): DateTime {
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone: moved.zone }).offset;
  let before = moved.toMillis() - 3 * 3_600_000;
  let after = moved.toMillis();
  while (after - before > 60_000) {
    const middle = before + Math.floor((after - before) / 120_000) * 60_000;
    if (offsetAt(middle) === moved.offset) after = middle;
    else before = middle;
  }
  return DateTime.fromMillis(after, { zone: moved.zone });
}

/**
 * The instant a local date and hour begins in `zone`, under the zone's rules for that date: a
 * skipped hour gives the next existing time (the end of the gap), a repeated hour its first
 * instance.
 */
function localStart(localDate: string, localHour: number, zone: string): DateTime {
  const { year, month, day } = calendarDate(localDate);
  const wall = { year, month, day, hour: localHour };
  const guess = DateTime.fromObject(wall, { zone });
  if (!guess.isValid)
    throw new RangeError(`${localDate} ${localHour}:00 in ${zone}: ${guess.invalidExplanation}`);
  const isWall = (t: DateTime) =>
    t.year === year && t.month === month && t.day === day && t.hour === localHour && t.minute === 0;
  if (!isWall(guess)) return gapEnd(guess);
  // luxon may pick either instance of a repeated hour: take the earliest instant showing that wall time.
  let first = guess;
  for (const minutes of EARLIER_INSTANCES_MINUTES) {
    const earlier = guess.minus({ minutes });
    if (isWall(earlier)) first = earlier;
  }
  return first;
}

/** The slot of occurrence `n` (from 1). */
export function occurrenceSlot(rule: Recurrence, n: number): OccurrenceSlot {
  const localDate = occurrenceDate(rule, n);
  const start = localStart(localDate, rule.localHour, rule.timeZone).toUTC();
  // Groups run in whole UTC hours: a start inside one (a :30 or :45 offset) runs at the next.
  const utc = start.minute === 0 && start.second === 0 ? start : start.startOf('hour').plus({ hours: 1 });
  return {
    occurrence: n,
    localDate,
    localTime: utc
      .setZone(rule.timeZone)
      .toISO({ suppressSeconds: true, suppressMilliseconds: true, includeOffset: true })!,
    scheduleDate: utc.toISODate()!,
    scheduleHour: utc.hour,
    at: utc.toJSDate(),
  };
}

/**
 * How many occurrences fall on or before `endDate` (a local date), counting no further than
 * `max + 1` (enough to tell "more than max").
 */
export function occurrencesUntil(
  rule: Pick<Recurrence, 'startDate' | 'frequency' | 'interval'>,
  endDate: string,
  max: number,
): number {
  let n = 0;
  while (n <= max && occurrenceDate(rule, n + 1) <= endDate) n++;
  return n;
}

/** The date `years` years after today's date in `timeZone` (yyyy-MM-dd): the latest a series may start. */
export const latestStartDate = (timeZone: string, now: Date, years: number): string =>
  DateTime.fromJSDate(now, { zone: timeZone }).plus({ years }).toISODate()!;

/** When occurrence `slot`'s group is due to be created: `noticeDays` whole days (24 h each) before its slot. */
export const creationTime = (slot: Pick<OccurrenceSlot, 'at'>, noticeDays: number): Date =>
  DateTime.fromJSDate(slot.at, { zone: 'utc' }).minus({ days: noticeDays }).toJSDate();
