/**
 * The validators' `date` and `date-time` formats (lambdas/shared/formats.ts) answer as
 * ajv-formats' `fullFormats`, which they were taken from so that bundles hold only these two;
 * date-time also refuses what `Date.parse` cannot read.
 */
import { fullFormats } from 'ajv-formats/dist/formats';
import { formats } from '#shared/formats';

const reference = (name: 'date' | 'date-time') =>
  (fullFormats[name] as { validate: (s: string) => boolean }).validate;

test.each([
  '2026-11-26',
  '2024-02-29',
  '2023-02-29',
  '2100-02-29',
  '2000-02-29',
  '2026-13-01',
  '2026-00-10',
  '2026-04-31',
  '2026-1-01',
  '26-11-26',
  '',
  '2026-11-26T00:00:00Z',
])('date %p answers as ajv-formats', (text) => {
  expect(formats.date.validate(text)).toBe(reference('date')(text));
});

test.each([
  '2026-11-26T04:17:03Z',
  '2026-11-26T04:17:03.123Z',
  '2026-11-26t04:17:03z',
  '2026-11-26 04:17:03+01:00',
  '2026-11-26T04:17:03+0100',
  '2026-11-26T04:17:03',
  '2026-11-26T24:00:00Z',
  '2026-11-26T23:59:60Z',
  '2026-11-26T22:59:60-01:00',
  '2026-11-26T23:59:60+01:00',
  '2026-11-26T04:60:00Z',
  '2026-11-26T04:17:03+24:00',
  '2026-02-30T04:17:03Z',
  '2026-11-26',
  'not a time',
  '2026-11-26T04:17:03+01',
])('date-time %p answers as ajv-formats, but for what Date.parse cannot read', (text) => {
  expect(formats['date-time'].validate(text)).toBe(
    reference('date-time')(text) && !Number.isNaN(Date.parse(text)),
  );
});

test.each(['2026-06-30T23:59:60Z', '2026-11-26T22:59:60-01:00', '2026-06-30T12:00:00+01'])(
  'defect: %p passed the date-time format, and a webhook replay since it answered 500 (Date.parse reads no time): refused',
  (text) => {
    expect(reference('date-time')(text)).toBe(true);
    expect(formats['date-time'].validate(text)).toBe(false);
  },
);
