/**
 * E-mail pacing (docs/decisions.md, "E-mail pacing"): which SES errors are throttles (no attempt),
 * the retry delays, and the pacer that spreads a container's sends over its share of the rate.
 */
import '#support/handlers/env';
import { isThrottle } from '#shared/mailer';
import { backoffSeconds } from '#core/outbox';
import { Pacer } from '#shared/pacer';
import { awsError } from '#support/handlers/invoke';

describe('what counts as a throttle', () => {
  it.each([
    ['TooManyRequestsException', 'Maximum sending rate exceeded.'],
    ['ThrottlingException', 'Rate exceeded'],
    ['Throttling', 'Maximum sending rate exceeded.'],
    ['LimitExceededException', 'Daily message quota exceeded.'],
  ])('%s: %s', (name, message) => {
    expect(isThrottle(awsError(name, message))).toBe(true);
  });

  it.each([
    ['MessageRejected', 'Email address is not verified.'],
    ['BadRequestException', 'Missing final @domain'],
    ['AccountSuspendedException', 'Account suspended'],
    ['ServiceUnavailable', 'unavailable'],
  ])('not %s: %s (an attempt)', (name, message) => {
    expect(isThrottle(awsError(name, message))).toBe(false);
  });
});

describe('retry delays', () => {
  it('double from 1 s to the 15-minute cap, each between half and all of its step', () => {
    expect([1, 2, 3, 4, 11, 50].map((n) => backoffSeconds(n, () => 1))).toEqual([1, 2, 4, 8, 900, 900]);
    expect([1, 2, 3, 4, 11, 50].map((n) => backoffSeconds(n, () => 0))).toEqual([1, 1, 2, 4, 450, 450]);
  });
});

describe('the pacer', () => {
  it('gives one slot per interval (14/s over 2 containers: one send every 143 ms each)', async () => {
    let now = 1_000;
    const pacer = new Pacer(1000 / 7, () => now);
    const waits: number[] = [];
    jest.spyOn(global, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      waits.push(Math.round(ms));
      fn();
      return 0 as unknown as NodeJS.Timeout;
    }) as typeof setTimeout);
    try {
      await pacer.take();
      await pacer.take();
      await pacer.take();
      expect(waits).toEqual([143, 286]);
      now += 1_000; // idle: no debt carried over
      await pacer.take();
      expect(waits).toEqual([143, 286]);
      pacer.holdBack(250);
      await pacer.take();
      expect(waits).toEqual([143, 286, 250]);
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('divides the rate among the containers', () => {
    expect(Pacer.of(14, 2)).toEqual(new Pacer(1000 / 7));
  });
});
