/**
 * Which whole-group void-or-refunds run in the background (core/void-or-refund-run.ts): above
 * 1,000 payments, or above VOID_OR_REFUND_BACKGROUND_ABOVE when that is lower; never above 1,000,
 * the most `paymentIds` a request reverses itself.
 */
import '#support/handlers/env';
import { reversesInBackground } from '#core/void-or-refund-run';
import { reloadConfigForTests } from '#shared/config';

const withThreshold = (value: string | undefined, check: () => void) => {
  const before = process.env.VOID_OR_REFUND_BACKGROUND_ABOVE;
  if (value === undefined) delete process.env.VOID_OR_REFUND_BACKGROUND_ABOVE;
  else process.env.VOID_OR_REFUND_BACKGROUND_ABOVE = value;
  reloadConfigForTests();
  try {
    check();
  } finally {
    if (before === undefined) delete process.env.VOID_OR_REFUND_BACKGROUND_ABOVE;
    else process.env.VOID_OR_REFUND_BACKGROUND_ABOVE = before;
    reloadConfigForTests();
  }
};

describe('reversesInBackground', () => {
  it('takes a group of more than 1,000 payments to the background by default', () =>
    withThreshold(undefined, () => {
      expect(reversesInBackground(1000)).toBe(false);
      expect(reversesInBackground(1001)).toBe(true);
    }));

  it('takes smaller groups there when the setting is lower', () =>
    withThreshold('150', () => {
      expect(reversesInBackground(150)).toBe(false);
      expect(reversesInBackground(151)).toBe(true);
    }));

  it('never keeps a group of more than 1,000 payments within the request', () =>
    withThreshold('5000', () => {
      expect(reversesInBackground(1000)).toBe(false);
      expect(reversesInBackground(1001)).toBe(true);
    }));
});
