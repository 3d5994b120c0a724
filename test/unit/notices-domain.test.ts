/**
 * The notices' rules (lambdas/domain/notices.ts): every return code in its Nacha category, an
 * unknown code `other` with the processor's words, the per-object order, the held notices' waits.
 */
import { holdDelaySeconds, isLate, returnCodeOf, RETURN_CODES } from '#domain/notices';

describe('return codes', () => {
  it.each([
    ['R01', 'nsf'],
    ['R09', 'nsf'],
    ['R02', 'administrative'],
    ['R03', 'administrative'],
    ['R04', 'administrative'],
    ['R05', 'unauthorized'],
    ['R07', 'unauthorized'],
    ['R10', 'unauthorized'],
    ['R11', 'unauthorized'],
    ['R29', 'unauthorized'],
    ['R51', 'unauthorized'],
    ['R08', 'other'],
    ['R16', 'other'],
  ])('%s is %s (Nacha return-rate groups; R01/R09 reinitiable)', (code, category) => {
    expect(returnCodeOf(code).category).toBe(category);
  });

  it('the unauthorized and administrative groups are exactly those of the return-rate rules', () => {
    const of = (c: string) =>
      Object.entries(RETURN_CODES)
        .filter(([, v]) => v.category === c)
        .map(([k]) => k)
        .sort();
    expect(of('unauthorized')).toEqual(['R05', 'R07', 'R10', 'R11', 'R29', 'R51']);
    expect(of('administrative')).toEqual(['R02', 'R03', 'R04']);
  });

  it('an unknown code is other, with the processor’s words or the code', () => {
    expect(returnCodeOf('R83', 'Foreign receiving bank unable to settle')).toEqual({
      reason: 'Foreign receiving bank unable to settle',
      category: 'other',
    });
    expect(returnCodeOf('R99')).toEqual({ reason: 'Returned (R99)', category: 'other' });
  });
});

describe('per-object order', () => {
  it('a notice not past the last applied to its record is late; the first never is', () => {
    expect(isLate(undefined, 1)).toBe(false);
    expect(isLate(2, 3)).toBe(false);
    expect(isLate(2, 2)).toBe(true);
    expect(isLate(3, 2)).toBe(true);
  });
});

describe('held notices', () => {
  it('are tried again after 30 s, then waits doubling up to an hour', () => {
    expect([1, 2, 3, 4].map(holdDelaySeconds)).toEqual([30, 60, 120, 240]);
    expect(holdDelaySeconds(20)).toBe(3600);
  });
});
