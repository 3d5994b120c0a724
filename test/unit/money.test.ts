import { formatCents, fromCents, isWholeCents, MAX_AMOUNT, toCents } from '#domain/money';

describe('toCents', () => {
  it.each([
    [19.99, 1999],
    [0.01, 1],
    [0.1, 10],
    [0.29, 29],
    [1.1, 110],
    [999999.99, 99999999],
    [MAX_AMOUNT, 99999999],
    [1, 100],
    [0, 0],
    [-19.99, -1999],
  ])('%p → %p cents', (amount, cents) => {
    expect(toCents(amount)).toBe(cents);
  });

  it.each([1.005, 0.001, 19.999, 12.345, 1.00001, 0.00001, 999999.991])(
    '%p has more than two decimals and throws',
    (amount) => {
      expect(() => toCents(amount)).toThrow(RangeError);
      expect(() => toCents(amount)).toThrow(`amount ${amount} has more than two decimals`);
    },
  );

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 1e20])('%p is refused', (amount) => {
    expect(() => toCents(amount)).toThrow(RangeError);
  });
});

describe('isWholeCents', () => {
  it.each([0.01, 0.1, 0.29, 1.1, 19.99, 113298.68, 999999.99, 0, -19.99, 1e3])(
    '%p is whole cents',
    (amount) => {
      expect(isWholeCents(amount)).toBe(true);
    },
  );

  it.each([1e-9, 1e-7, 0.001, 0.005, 19.990000001, 19.99000001, 1.00000000001, 12345.67000001, 1.005])(
    '%p is not whole cents',
    (amount) => {
      expect(isWholeCents(amount)).toBe(false);
    },
  );

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e20])(
    '%p is refused',
    (amount) => {
      expect(isWholeCents(amount)).toBe(false);
    },
  );

  it('accepts c/100 for every c in 0..100000, the top 100000 and a stride over all of 0..99999999', () => {
    // A full sweep of 10^8 values is too slow for the unit tier (inside Jest); this covers every
    // small and every near-maximum amount, and a prime stride through the whole range.
    const refused: number[] = [];
    const check = (cents: number) => {
      if (!isWholeCents(cents / 100) || toCents(cents / 100) !== cents) refused.push(cents);
    };
    for (let c = 0; c <= 100_000; c++) check(c);
    for (let c = 99_999_999; c > 99_999_999 - 100_000; c--) check(c);
    for (let c = 100_001; c < 99_900_000; c += 997) check(c);
    expect(refused).toEqual([]);
  });
});

describe('fromCents', () => {
  it.each([
    [1999, 19.99],
    [1, 0.01],
    [99999999, 999999.99],
    [0, 0],
    [-250, -2.5],
  ])('%p cents → %p', (cents, amount) => {
    expect(fromCents(cents)).toBe(amount);
  });

  it('round-trips every cent value from 0.00 to 1000.00 and near the maximum', () => {
    const values = [
      ...Array.from({ length: 100_001 }, (_, i) => i),
      ...Array.from({ length: 1000 }, (_, i) => 99999999 - i),
    ];
    expect(values.filter((cents) => toCents(fromCents(cents)) !== cents)).toEqual([]);
  });
});

describe('formatCents', () => {
  it.each([
    [1999, '19.99'],
    [1, '0.01'],
    [10, '0.10'],
    [100, '1.00'],
    [0, '0.00'],
    [99999999, '999999.99'],
    [-1, '-0.01'],
    [-1999, '-19.99'],
    [-100, '-1.00'],
  ])('%p cents → %p', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });
});
