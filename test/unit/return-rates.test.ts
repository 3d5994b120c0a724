/**
 * Nacha return rates (domain/return-rates.ts): the window, the rates and the statuses.
 */
import fc from 'fast-check';
import {
  RETURN_CATEGORIES,
  RETURN_RATE_LIMITS,
  rateStatus,
  returnRates,
  returnRateWindow,
  worse,
  type DayCounts,
  type ReturnCategory,
} from '#domain/return-rates';

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Debit {
  at: number;
  returned?: ReturnCategory;
}

/** The counters as the store keeps them: per day and shard, each debit in one shard, its return with it. */
function counters(debits: readonly (Debit & { shard: number })[]): DayCounts[] {
  const byKey = new Map<string, DayCounts>();
  for (const d of debits) {
    const key = `${day(d.at)}#${d.shard}`;
    const c = byKey.get(key) ?? { day: day(d.at), debits: 0, returns: {} };
    c.debits++;
    if (d.returned) c.returns[d.returned] = (c.returns[d.returned] ?? 0) + 1;
    byKey.set(key, c);
  }
  return [...byKey.values()];
}

describe('return rates', () => {
  it('the window is today and the 59 UTC days before it', () => {
    expect(returnRateWindow(new Date('2030-03-01T00:00:00.000Z'))).toEqual({
      since: '2030-01-01',
      until: '2030-03-01',
    });
    expect(returnRateWindow(new Date('2030-03-01T23:59:59.999Z'))).toEqual({
      since: '2030-01-01',
      until: '2030-03-01',
    });
  });

  it('a merchant with no debits has rates of 0 and status ok', () => {
    const rates = returnRates([], new Date('2030-03-01T12:00:00Z'));
    expect(rates).toEqual({
      windowDays: 60,
      debitCount: 0,
      unauthorized: { count: 0, rate: 0, limit: 0.005, status: 'ok' },
      administrative: { count: 0, rate: 0, limit: 0.03, status: 'ok' },
      overall: { count: 0, rate: 0, limit: 0.15, status: 'ok' },
      status: 'ok',
    });
  });

  it('return-rate arithmetic: the rates equal the hand count of returns over debits of the window by the debit’s date, at the window’s edges included', () => {
    const debit = fc.record({
      // From two days before the window's first day to a day after today, in ms from the first
      // day's start: the edges (the first day, today, the days just outside) come up often.
      offset: fc.oneof(
        fc.integer({ min: -2 * DAY, max: 61 * DAY - 1 }),
        fc.constantFrom(-1, 0, 60 * DAY - 1, 60 * DAY, DAY * 59 + 1),
      ),
      returned: fc.option(fc.constantFrom(...RETURN_CATEGORIES), { nil: undefined }),
      shard: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(debit, { maxLength: 300 }),
        fc.integer({ min: 0, max: DAY - 1 }),
        (list, timeOfDay) => {
          const now = new Date(Date.UTC(2030, 2, 1) + timeOfDay);
          const first = Date.UTC(2030, 2, 1) - 59 * DAY;
          const debits = list.map((d) => ({
            ...(d.returned && { returned: d.returned }),
            shard: d.shard,
            at: first + d.offset,
          }));
          const rates = returnRates(counters(debits), now);
          // By hand: a debit counts when made from the window's first day's start to the end of today.
          const counted = debits.filter((d) => d.at >= first && d.at < Date.UTC(2030, 2, 2));
          const of = (kinds: readonly ReturnCategory[]) =>
            counted.filter((d) => d.returned !== undefined && kinds.includes(d.returned)).length;
          const rate = (n: number) =>
            counted.length === 0 ? 0 : Math.round((n / counted.length) * 10_000) / 10_000;
          expect(rates.debitCount).toBe(counted.length);
          expect(rates.unauthorized.count).toBe(of(['unauthorized']));
          expect(rates.administrative.count).toBe(of(['administrative']));
          expect(rates.overall.count).toBe(of(RETURN_CATEGORIES));
          expect(rates.unauthorized.rate).toBe(rate(of(['unauthorized'])));
          expect(rates.administrative.rate).toBe(rate(of(['administrative'])));
          expect(rates.overall.rate).toBe(rate(of(RETURN_CATEGORIES)));
          expect(rates.status).toBe(
            worse(worse(rates.unauthorized.status, rates.administrative.status), rates.overall.status),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    // unauthorized, limit 0.5%: warning from 0.25%, alert from 0.4%, over above 0.5%
    ['unauthorized', 24, 10_000, 'ok'],
    ['unauthorized', 25, 10_000, 'warning'],
    ['unauthorized', 39, 10_000, 'warning'],
    ['unauthorized', 40, 10_000, 'alert'],
    ['unauthorized', 50, 10_000, 'alert'],
    ['unauthorized', 51, 10_000, 'over'],
    ['unauthorized', 1, 200, 'alert'],
    ['unauthorized', 1, 199, 'over'],
    // administrative, limit 3%
    ['administrative', 149, 10_000, 'ok'],
    ['administrative', 150, 10_000, 'warning'],
    ['administrative', 240, 10_000, 'alert'],
    ['administrative', 300, 10_000, 'alert'],
    ['administrative', 301, 10_000, 'over'],
    // overall, limit 15%
    ['overall', 749, 10_000, 'ok'],
    ['overall', 750, 10_000, 'warning'],
    ['overall', 1200, 10_000, 'alert'],
    ['overall', 1500, 10_000, 'alert'],
    ['overall', 1501, 10_000, 'over'],
    ['overall', 3, 20, 'alert'],
    ['overall', 0, 0, 'ok'],
  ] as const)(
    'statuses: %s %i returns of %i debits is %s (exact, at least half the limit, 80%%, above it)',
    (kind, count, debits, status) => {
      expect(rateStatus(kind, count, debits)).toBe(status);
    },
  );

  it('the top status is the worst, and each kind shows its limit', () => {
    const now = new Date('2030-03-01T12:00:00Z');
    // 1 unauthorized of 100 debits (1%, over 0.5%), nothing else
    const rates = returnRates([{ day: '2030-02-01', debits: 100, returns: { unauthorized: 1 } }], now);
    expect(rates.unauthorized).toEqual({
      count: 1,
      rate: 0.01,
      limit: RETURN_RATE_LIMITS.unauthorized,
      status: 'over',
    });
    expect(rates.overall.status).toBe('ok');
    expect(rates.status).toBe('over');
  });

  it('rates are rounded to 4 decimals', () => {
    const now = new Date('2030-03-01T12:00:00Z');
    const rates = returnRates([{ day: '2030-03-01', debits: 3, returns: { nsf: 1 } }], now);
    expect(rates.overall.rate).toBe(0.3333);
  });
});

test('defect: a return rate exactly halfway between two 4-decimal values was rounded down by float error (139 of 800 debits, 0.17375, showed 0.1737)', () => {
  const at = new Date('2031-03-02T10:00:00.000Z');
  const rates = returnRates([{ day: '2031-03-01', debits: 800, returns: { nsf: 139 } }], at);
  expect(rates.overall).toMatchObject({ count: 139, rate: 0.1738 });
  // Halves up, below halves down, as before.
  const rate = (returns: number, debits: number) =>
    returnRates([{ day: '2031-03-01', debits, returns: { nsf: returns } }], at).overall.rate;
  expect([rate(1, 3), rate(2, 3), rate(1, 20_000), rate(1, 20_001), rate(57, 800), rate(0, 5)]).toEqual([
    0.3333, 0.6667, 0.0001, 0, 0.0713, 0,
  ]);
});
