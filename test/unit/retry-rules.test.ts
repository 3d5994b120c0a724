/**
 * The retry rules of DESIGN section 5 (lambdas/domain/retries.ts) as tables: card brand, response
 * code, advice code and the card's history → a retry scheduled, or the reason it is not; the
 * networks' windows at their edges (30 days, 24 hours, Nacha's 180 days).
 */
import type { AccountType } from '#domain/cards';
import {
  decideRetry,
  limitPassed,
  nextAttemptAt,
  reattemptsWithin,
  type AttemptAnswer,
  type CardUse,
  type RetryPolicy,
} from '#domain/retries';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const AT = new Date('2026-11-20T10:15:00.000Z');
const POLICY: RetryPolicy = { maxRetries: 3, intervalHours: 24 };
/** The slot of a retry decided at AT under POLICY. */
const NEXT = new Date('2026-11-21T11:00:00.000Z');

/** `n` reattempts (retries) ending `endBefore` ms before `at`, one hour apart, after a first decline. */
function retries(n: number, at: Date, endBefore = HOUR): CardUse[] {
  const uses: CardUse[] = [
    { at: new Date(at.getTime() - endBefore - n * HOUR).toISOString(), outcome: 'declined', retry: false },
  ];
  for (let i = n - 1; i >= 0; i--)
    uses.push({
      at: new Date(at.getTime() - endBefore - i * HOUR).toISOString(),
      outcome: 'declined',
      retry: true,
    });
  return uses;
}

const declined = (
  responseCode: string,
  declineCategory: '1' | '2',
  merchantAdviceCode?: string,
): AttemptAnswer => ({
  status: 'Declined',
  responseCode,
  declineCategory,
  ...(merchantAdviceCode !== undefined && { merchantAdviceCode }),
});

describe('decideRetry: brand, code, advice code and history', () => {
  const approved: AttemptAnswer = { status: 'Approved', responseCode: '00' };
  test.each<[string, AccountType, AttemptAnswer, number, RetryPolicy, CardUse[], object | undefined]>([
    ['approved at once: nothing to show', 'VISA', approved, 1, POLICY, [], undefined],
    ['approved on a retry', 'VISA', approved, 2, POLICY, [], { status: 'succeeded' }],
    [
      'no retries allowed',
      'VISA',
      declined('51', '2'),
      1,
      { maxRetries: 0, intervalHours: 24 },
      [],
      undefined,
    ],
    [
      'Visa 51',
      'VISA',
      declined('51', '2'),
      1,
      POLICY,
      [],
      { status: 'scheduled', nextAttemptAt: NEXT.toISOString() },
    ],
    [
      'category 1',
      'VISA',
      declined('05', '1'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'category_1' },
    ],
    [
      'Mastercard 51 advice 03',
      'MASTERCARD',
      declined('51', '2', '03'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'advice_code' },
    ],
    [
      'Mastercard 51 advice 21',
      'MASTERCARD',
      declined('51', '2', '21'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'advice_code' },
    ],
    [
      'Mastercard 51 advice 01',
      'MASTERCARD',
      declined('51', '2', '01'),
      1,
      POLICY,
      [],
      { status: 'scheduled' },
    ],
    [
      "defect: advice 03 on a Visa card (Stripe's do_not_try_again, on any brand) was retried",
      'VISA',
      declined('51', '2', '03'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'advice_code' },
    ],
    ['CHECKING 51', 'CHECKING', declined('51', '2'), 1, POLICY, [], { status: 'scheduled' }],
    [
      'CHECKING other category 2',
      'CHECKING',
      declined('91', '2'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'network_limit' },
    ],
    [
      'CHECKING R2',
      'CHECKING',
      declined('R2', '1'),
      1,
      POLICY,
      [],
      { status: 'not_retried', reason: 'category_1' },
    ],
    [
      'last retry used',
      'VISA',
      declined('51', '2'),
      4,
      POLICY,
      [],
      { status: 'exhausted', reason: 'policy_exhausted' },
    ],
    ['one retry left', 'VISA', declined('51', '2'), 3, POLICY, [], { status: 'scheduled' }],
    [
      'Visa: 14 reattempts in 30 days, the 15th allowed',
      'VISA',
      declined('51', '2'),
      1,
      POLICY,
      retries(14, AT),
      { status: 'scheduled' },
    ],
    [
      'Visa: 15 reattempts in 30 days',
      'VISA',
      declined('51', '2'),
      1,
      POLICY,
      retries(15, AT),
      { status: 'not_retried', reason: 'network_limit' },
    ],
    [
      'Discover follows Visa: 15',
      'DISCOVER',
      declined('51', '2'),
      1,
      POLICY,
      retries(15, AT),
      { status: 'not_retried', reason: 'network_limit' },
    ],
    [
      'Mastercard: 9 in 24 hours',
      'MASTERCARD',
      declined('51', '2'),
      1,
      POLICY,
      retries(9, NEXT),
      { status: 'scheduled' },
    ],
    [
      'Mastercard: 10 in 24 hours',
      'MASTERCARD',
      declined('51', '2'),
      1,
      POLICY,
      retries(10, NEXT),
      { status: 'not_retried', reason: 'network_limit' },
    ],
    [
      'Mastercard: 10 in the 24 hours before the decline, none in the 24 before the retry',
      'MASTERCARD',
      declined('51', '2'),
      1,
      POLICY,
      retries(10, AT),
      { status: 'scheduled' },
    ],
    [
      'CHECKING: 1 in 180 days',
      'CHECKING',
      declined('51', '2'),
      1,
      POLICY,
      retries(1, AT, 100 * DAY),
      { status: 'scheduled' },
    ],
    [
      'CHECKING: 2 in 180 days',
      'CHECKING',
      declined('51', '2'),
      1,
      POLICY,
      retries(2, AT, 100 * DAY),
      { status: 'not_retried', reason: 'network_limit' },
    ],
  ])('%s', (_, accountType, answer, attempt, policy, history, expected) => {
    const decision = decideRetry({ policy, attempt, answer, accountType, history, at: AT });
    if (expected === undefined) expect(decision).toBeUndefined();
    else expect(decision).toMatchObject(expected);
  });

  test('a network limit names its rule', () => {
    const decision = decideRetry({
      policy: POLICY,
      attempt: 1,
      answer: declined('51', '2'),
      accountType: 'MASTERCARD',
      history: retries(10, NEXT),
      at: AT,
    });
    expect(decision?.detail).toMatch(/Mastercard: at most 10 .* 24 hours/);
  });
});

describe('the windows at their edges (a retry prospective at `at`)', () => {
  // The last reattempt `ms` before `at`: inside the window while ms < window, out at ms = window.
  const edge = (n: number, window: number, ms: number, accountType: AccountType) => {
    const history = retries(n, AT, ms);
    return limitPassed(accountType, history, AT, true)?.rule;
  };
  test.each<[string, AccountType, number, number, number, boolean]>([
    // Visa: 15 in 30 days. The oldest of 15 is 14 h before the last; the last at the edge shifts it out.
    ['Visa 30 days: oldest reattempt 1 ms inside', 'VISA', 15, 30 * DAY, 30 * DAY - 14 * HOUR - 1, true],
    [
      'Visa 30 days: oldest reattempt exactly 30 days before',
      'VISA',
      15,
      30 * DAY,
      30 * DAY - 14 * HOUR,
      false,
    ],
    ['Mastercard 24 h: oldest 1 ms inside', 'MASTERCARD', 10, DAY, DAY - 9 * HOUR - 1, true],
    ['Mastercard 24 h: oldest exactly 24 h before', 'MASTERCARD', 10, DAY, DAY - 9 * HOUR, false],
    ['CHECKING 180 days: oldest 1 ms inside', 'CHECKING', 2, 180 * DAY, 180 * DAY - HOUR - 1, true],
    ['CHECKING 180 days: oldest exactly 180 days before', 'CHECKING', 2, 180 * DAY, 180 * DAY - HOUR, false],
  ])('%s', (_, accountType, n, _window, ms, passes) => {
    expect(edge(n, _window, ms, accountType) !== undefined).toBe(passes);
  });

  test('Mastercard 35 in 30 days, spread so that no 24 hours hold 10', () => {
    // 35 reattempts 20 hours apart (under 10 in any 24 hours), all within 30 days.
    const history: CardUse[] = [
      { at: new Date(AT.getTime() - 36 * 20 * HOUR).toISOString(), outcome: 'declined', retry: false },
    ];
    for (let i = 35; i >= 1; i--)
      history.push({
        at: new Date(AT.getTime() - i * 20 * HOUR).toISOString(),
        outcome: 'declined',
        retry: true,
      });
    expect(limitPassed('MASTERCARD', history, AT, true)?.rule).toMatch(/35 .* 30 days/);
    expect(limitPassed('MASTERCARD', history.slice(0, -1), AT, true)).toBeUndefined();
  });
});

describe('what counts as a reattempt', () => {
  test('an attempt after an approval is not one; after a decline (or a pending attempt) it is', () => {
    const at = (h: number) => new Date(AT.getTime() - h * HOUR).toISOString();
    const history: CardUse[] = [
      { at: at(5), outcome: 'approved', retry: false },
      { at: at(4), outcome: 'declined', retry: false }, // after an approval: not a reattempt
      { at: at(3), outcome: 'pending', retry: false }, // after a decline: one
      { at: at(2), outcome: 'approved', retry: false }, // after a pending attempt: one
      { at: at(1), outcome: 'declined', retry: true }, // a retry: one
    ];
    expect(reattemptsWithin(history, AT, 24)).toBe(3);
    // The entry before the window tells whether the first inside it was a reattempt.
    expect(reattemptsWithin(history, AT, 3.5)).toBe(3);
    expect(reattemptsWithin(history, AT, 1.5)).toBe(1);
  });
});

describe('nextAttemptAt: the first hourly slot at least intervalHours after', () => {
  test.each([
    ['2026-11-20T10:15:00.000Z', 24, '2026-11-21T11:00:00.000Z'],
    ['2026-11-20T10:00:00.000Z', 24, '2026-11-21T10:00:00.000Z'],
    ['2026-11-20T23:59:59.999Z', 240, '2026-12-01T00:00:00.000Z'],
  ])('%s + %ih → %s', (last, hours, expected) => {
    expect(nextAttemptAt(new Date(last), hours)).toBe(expected);
  });
});
