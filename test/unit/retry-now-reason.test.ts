/**
 * Why a retry-now started no round (core/retry-rounds.ts nothingStarted): from the merchant's
 * groups with a retry scheduled and the outcomes of the rounds that were due. The end-to-end case
 * (a run waiting for its settlement cut-off) is test/e2e/retry-now-reason.test.ts.
 */
import type { Group } from '#domain/groups';
import type { nothingStarted as NothingStarted } from '#core/retry-rounds';

// core/retry-rounds loads the configuration on import (through the processing starter).
process.env.TABLE_NAME ??= 'unit-test-table';
let nothingStarted: typeof NothingStarted;
beforeAll(async () => {
  ({ nothingStarted } = await import('#core/retry-rounds'));
});

const group = (over: Partial<Group>): Group =>
  ({ paymentGroupId: 'g', status: 'processed', retrySlot: '2030-06-04T14', ...over }) as Group;
const settling = (settlesAt: string | null) =>
  group({ processingSummary: { settlesAt } as Group['processingSummary'] });

test('no group with a retry scheduled', () => {
  expect(nothingStarted([], [])).toEqual({
    reason: 'no_retries_scheduled',
    message: 'no group of the merchant has a retry scheduled',
  });
});

test('runs waiting for their settlement cut-off: the earliest cut-off, one group or several', () => {
  expect(nothingStarted([settling('2030-06-03T15:00:00.000Z')], [])).toEqual({
    reason: 'awaiting_settlement',
    message:
      '1 group with retries scheduled waits for the settlement cut-off of its last run (the earliest at 2030-06-03T15:00:00.000Z), ' +
      "which sends the receipts of the payments it approved; the retries can start within a minute after it (settle-now settles the merchant's sales now)",
    settlesAt: '2030-06-03T15:00:00.000Z',
  });
  const two = nothingStarted(
    [settling('2030-06-03T16:00:00.000Z'), settling('2030-06-03T15:00:00.000Z'), settling(null)],
    [],
  );
  expect(two).toMatchObject({ reason: 'awaiting_settlement', settlesAt: '2030-06-03T15:00:00.000Z' });
  expect(two.message).toMatch(
    /^3 groups with retries scheduled wait for the settlement cut-off of their last run/,
  );
  // Without a known cut-off the message says so without a time, and no settlesAt.
  const unknown = nothingStarted([settling(null)], []);
  expect(unknown).not.toHaveProperty('settlesAt');
  expect(unknown.message).not.toContain('earliest');
});

test('rounds running now', () => {
  const running = group({ retryBound: '9999-12-31T23' });
  expect(nothingStarted([running], [])).toEqual({
    reason: 'round_running',
    message: '1 group with retries scheduled is running a retry round now',
  });
  expect(nothingStarted([running, running], []).message).toBe(
    '2 groups with retries scheduled are running a retry round now',
  );
  // A run waiting for its cut-off is told first: it is the one a tester can hurry.
  expect(nothingStarted([running, settling('2030-06-03T15:00:00.000Z')], []).reason).toBe(
    'awaiting_settlement',
  );
});

test('rounds due that could not be started: each entry says why', () => {
  const waiting = group({ awaitingRetry: true });
  expect(nothingStarted([waiting], [{ paymentGroupId: 'g', error: 'the group does not exist' }])).toEqual({
    reason: 'start_failed',
    message: '1 group had a retry round due, but none could be started: each entry says why',
  });
});
