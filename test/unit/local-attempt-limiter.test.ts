/** The local token endpoint's failed-attempt limiter (issue 9): a pure class with an injected clock. */
import { FailedAttemptLimiter, TOKEN_ATTEMPTS } from '#lib/local/auth';

test('the token endpoint limits failed attempts per remote address, then forgets them after the window', () => {
  let now = 0;
  const limiter = new FailedAttemptLimiter(TOKEN_ATTEMPTS.perAddress, TOKEN_ATTEMPTS.windowMs, () => now);
  for (let i = 0; i < TOKEN_ATTEMPTS.perAddress - 1; i++) limiter.fail('address:10.0.0.1');
  expect(limiter.retryAfter('address:10.0.0.1')).toBe(0);
  limiter.fail('address:10.0.0.1');
  expect(limiter.retryAfter('address:10.0.0.1')).toBe(60);
  expect(limiter.retryAfter('address:10.0.0.2')).toBe(0);
  now = 59_500;
  expect(limiter.retryAfter('address:10.0.0.1')).toBe(1);
  now = 60_000;
  expect(limiter.retryAfter('address:10.0.0.1')).toBe(0);
});

test('clearing a key (a successful authentication) resets its count', () => {
  const limiter = new FailedAttemptLimiter(2, 1000, () => 0);
  limiter.fail('client:a');
  limiter.clear('client:a');
  limiter.fail('client:a');
  expect(limiter.retryAfter('client:a')).toBe(0);
});
