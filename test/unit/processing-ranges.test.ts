/**
 * The fan-out's arithmetic (issue 10, item 1): how many key ranges a group is cut into, the ranges
 * between cut points (together every key, each once), and the ranges' totals summed.
 */
import {
  emptyTotals,
  MAX_FAN_OUT,
  rangePlan,
  rangesBetween,
  sumTotals,
  type BatchState,
} from '#domain/processing';

const base = { paymentGroupId: 'g', merchantId: 'm', allowPartial: false };

/** The range a sort key falls in: after `cursor` (exclusive) up to `upTo` (inclusive). */
const holds = (r: BatchState, key: string) =>
  (r.cursor === null || key > r.cursor) && (r.upTo === null || r.upTo === undefined || key <= r.upTo);

describe('rangePlan', () => {
  it.each([
    // payments, batch, fan-out -> ranges, size
    [0, 250, 16, 1, 1],
    [250, 250, 16, 1, 250],
    [251, 250, 16, 2, 126],
    [10_000, 250, 16, 16, 625],
    [100_000, 250, 16, 16, 6250],
    [100_000, 250, 1, 1, 100_000],
    [1_200, 25, 6, 6, 200],
  ])('%i payments, batches of %i, fan-out %i: %i ranges of %i', (count, batch, fanOut, ranges, size) => {
    expect(rangePlan(count, batch, fanOut)).toEqual({ ranges, size });
  });

  it('never plans more ranges than an inline Map runs at once', () => {
    expect(rangePlan(100_000, 250, 1000).ranges).toBe(MAX_FAN_OUT);
  });
});

describe('rangesBetween', () => {
  it('is one range over everything without cut points', () => {
    expect(rangesBetween([], base)).toEqual([
      { ...base, cursor: null, upTo: null, totals: emptyTotals(), batches: 0 },
    ]);
  });

  it('puts every key in exactly one range, the cut keys and keys beyond both ends included', () => {
    const cuts = ['PAYMENT#3', 'PAYMENT#6', 'PAYMENT#9'];
    const ranges = rangesBetween(cuts, base);
    expect(ranges.map((r) => [r.cursor, r.upTo])).toEqual([
      [null, 'PAYMENT#3'],
      ['PAYMENT#3', 'PAYMENT#6'],
      ['PAYMENT#6', 'PAYMENT#9'],
      ['PAYMENT#9', null],
    ]);
    const keys = ['PAYMENT#', 'PAYMENT#0', 'PAYMENT#3', 'PAYMENT#4', 'PAYMENT#6', 'PAYMENT#9', 'PAYMENT#~'];
    for (const key of keys) expect([key, ranges.filter((r) => holds(r, key)).length]).toEqual([key, 1]);
  });
});

describe('sumTotals', () => {
  it('adds the counts and keeps the latest settlement cut-off', () => {
    const a = {
      ...emptyTotals(),
      approved: 3,
      partial: 1,
      approvedCents: 300,
      settlesAt: '2031-01-01T10:00:00Z',
    };
    const b = { ...emptyTotals(), declined: 2, failed: 1, skipped: 4, returned: 1, returnedCents: 70 };
    const c = {
      ...emptyTotals(),
      approved: 1,
      approvedCents: 50,
      disputed: 1,
      disputedCents: 50,
      settlesAt: '2031-01-01T11:00:00Z',
    };
    expect(sumTotals([a, b, c])).toEqual({
      approved: 4,
      partial: 1,
      declined: 2,
      failed: 1,
      skipped: 4,
      approvedCents: 350,
      settlesAt: '2031-01-01T11:00:00Z',
      retriesScheduled: 0,
      recovered: 0,
      recoveredCents: 0,
      returned: 1,
      returnedCents: 70,
      disputed: 1,
      disputedCents: 50,
      nextRetrySlot: null,
    });
    expect(sumTotals([])).toEqual(emptyTotals());
  });
});
