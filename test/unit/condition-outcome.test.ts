/** A cancelled transaction's reasons mapped to a store's outcome (lambdas/store/items.ts). */
import { conditionOutcome } from '#shared/ddb';

/** The error TransactWriteItems throws, with one reason per item ('None' where it was fine). */
const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

const outcomes = [
  [1, 'group-not-editable'],
  [0, 'payment-changed'],
] as const;

it('answers the outcome of the first item listed that failed its condition', () => {
  expect(conditionOutcome(cancelled('None', 'ConditionalCheckFailed'), outcomes)).toBe('group-not-editable');
  expect(conditionOutcome(cancelled('ConditionalCheckFailed', 'None'), outcomes)).toBe('payment-changed');
  expect(conditionOutcome(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed'), outcomes)).toBe(
    'group-not-editable',
  );
});

it('answers `any` for a failed condition on whichever item', () => {
  const anyItem = [
    [0, 'gone'],
    ['any', 'changed'],
  ] as const;
  expect(conditionOutcome(cancelled('None', 'None', 'ConditionalCheckFailed'), anyItem)).toBe('changed');
});

it('throws anything else again: another reason, an unlisted item, another error', () => {
  const conflict = cancelled('TransactionConflict', 'None');
  expect(() => conditionOutcome(conflict, outcomes)).toThrow(conflict);
  const third = cancelled('None', 'None', 'ConditionalCheckFailed');
  expect(() => conditionOutcome(third, outcomes)).toThrow(third);
  const other = new Error('network');
  expect(() => conditionOutcome(other, outcomes)).toThrow(other);
});
