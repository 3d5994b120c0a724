/**
 * The `date` and `date-time` formats of the precompiled validators (lambdas/generated/validators.ts),
 * as ajv-formats' `fullFormats` defines them (RFC 3339 full-date and date-time with a time zone;
 * ajv-formats 3, MIT licence), date-time narrowed to what `Date.parse` reads. The generated code takes them from here rather than from
 * `ajv-formats/dist/formats`, a CommonJS module a bundle holds whole (about 7 KB of formats no
 * schema uses), so that the largest routes' bundles stay within their budget
 * (scripts/check-bundles.ts). test/unit/formats.test.ts compares them with ajv-formats'.
 */

const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function date(str: string): boolean {
  const matches = DATE.exec(str);
  if (!matches) return false;
  const year = +matches[1]!;
  const month = +matches[2]!;
  const day = +matches[3]!;
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : DAYS[month]!)
  );
}

const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;

/** A time with a time zone (`strictTimeZone`, as date-time's), leap seconds at 23:59:60 UTC. */
function time(str: string): boolean {
  const matches = TIME.exec(str);
  if (!matches) return false;
  const hr = +matches[1]!;
  const min = +matches[2]!;
  const sec = +matches[3]!;
  const tz = matches[4];
  const tzSign = matches[5] === '-' ? -1 : 1;
  const tzH = +(matches[6] ?? 0);
  const tzM = +(matches[7] ?? 0);
  if (tzH > 23 || tzM > 59 || !tz) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  const utcMin = min - tzM * tzSign;
  const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

const DATE_TIME_SEPARATOR = /t|\s/i;

/**
 * RFC 3339's date-time, as ajv-formats has it, that is also a moment JavaScript's `Date` reads:
 * the service compares and stores every date-time as that moment. A leap second (`23:59:60Z`) and
 * an offset of hours only (`+01`), which the format allows and `Date.parse` does not, are refused
 * (a 400 naming the field) rather than read as no time at all.
 */
function dateTime(str: string): boolean {
  const parts = str.split(DATE_TIME_SEPARATOR);
  return parts.length === 2 && date(parts[0]!) && time(parts[1]!) && !Number.isNaN(Date.parse(str));
}

/** The formats by name, as ajv takes them (`validate`). */
export const formats = {
  date: { validate: date },
  'date-time': { validate: dateTime },
} as const;
