/**
 * The reconciliation function's event (issue 22, item 6): the daily rule's (`time`: the day before
 * it) or the operator's (`npm run admin -- reconcile --stage`: `since`, `staleMinutes`); a bad one
 * is refused before anything runs.
 */
import '#support/handlers/env';
import { windowOf } from '#core/reconcile';

test('the daily rule reconciles the 24 hours before its time', () => {
  expect(windowOf({ time: '2026-11-26T02:15:00Z' })).toEqual({
    since: '2026-11-25T02:15:00.000Z',
    now: new Date('2026-11-26T02:15:00Z'),
  });
});

test('the operator’s invocation sets the window’s start and the stale age', () => {
  const window = windowOf({ since: '2026-11-20T00:00:00Z', staleMinutes: 45 });
  expect(window).toMatchObject({ since: '2026-11-20T00:00:00.000Z', staleMinutes: 45 });
});

test.each([
  [{ since: 'yesterday' }, 'since yesterday is not an ISO-8601 time'],
  [{ time: 'soon' }, 'time soon is not an ISO-8601 time'],
  [{ staleMinutes: 0 }, 'staleMinutes 0 is not a whole number of minutes above 0'],
  [{ staleMinutes: 1.5 }, 'staleMinutes 1.5 is not a whole number of minutes above 0'],
])('refuses %j', (event, message) => {
  expect(() => windowOf(event)).toThrow(message);
});
