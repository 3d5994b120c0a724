/**
 * Defect "an event id could read as a card number": an event id is a UUIDv7's hex without its
 * dashes, which can hold 13 or more digits in a row; now and then they passed the card-number
 * check, and the service masked its own id in a 404's message (the e2e security test failed on
 * one). Such a draw is thrown back.
 */
import { containsCardNumber } from '#shared/card-number';

const draws: string[] = [];
jest.mock('#shared/ids', () => ({ newId: () => draws.shift() }));

/** Loaded after the fake (jest.mock is not hoisted above imports here). */
let newEvent: typeof import('#domain/events').newEvent;
beforeAll(async () => {
  ({ newEvent } = await import('#domain/events'));
});

const spec = {
  type: 'payor.created',
  merchantId: '32350000001',
  objectId: 'o',
  sequence: 1,
  data: {},
} as const;
const NOW = new Date('2026-12-02T00:00:00Z');

/** A UUID whose 32 hex digits, dashes removed, hold `digits` from the sixth on, letters around. */
const uuidHolding = (digits: string): string => {
  const hex = `01a2b${digits}`.padEnd(32, 'abcdef');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

test('a draw whose hex holds a card number is thrown back; the next one is the id', () => {
  const cardLike = uuidHolding('4111111111111111');
  expect(containsCardNumber(`evt_${cardLike.replace(/-/g, '')}`)).toBe(true);
  const plain = '01a23e63-7527-7182-a1c6-0bbd4b92074b';
  draws.push(cardLike, plain);
  expect(newEvent(spec, NOW).id).toBe('evt_01a23e6375277182a1c60bbd4b92074b');
  expect(draws).toEqual([]);
});

test('a run of digits that is no card number stays', () => {
  const digits = uuidHolding('4111111111111112');
  draws.push(digits);
  expect(newEvent(spec, NOW).id).toBe(`evt_${digits.replace(/-/g, '')}`);
});
