/** The local token endpoint's failed-attempt limiter (issue 9): a pure class with an injected clock. */
import {
  FailedAttemptLimiter,
  loadOrCreateKey,
  TOKEN_ATTEMPTS,
  tokenIssuer,
  type TokenIssuer,
} from '#lib/local/auth';

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

describe('issue 22, item 7: the lock-out is per client and address, bounded, and never wiped', () => {
  test('at capacity a new key evicts the key whose last failure is the oldest, one for one', () => {
    let now = 0;
    const limiter = new FailedAttemptLimiter(2, 60_000, () => now, 4);
    limiter.fail('a');
    limiter.fail('a'); // locked
    for (const key of ['b', 'c', 'd']) limiter.fail(key);
    limiter.fail('a'); // still failing: the newest again
    now = 1;
    limiter.fail('e'); // evicts b, the oldest last failure
    expect(limiter.size).toBe(4);
    expect(limiter.retryAfter('a')).toBeGreaterThan(0);
    limiter.fail('b'); // b's count starts over: it was evicted
    expect(limiter.retryAfter('b')).toBe(0);
  });

  test('spraying 10,000 new keys cannot reset a lock-out that keeps failing', () => {
    const limiter = new FailedAttemptLimiter(5, 60_000, () => 0);
    for (let i = 0; i < 5; i++) limiter.fail('client:victim|address:203.0.113.9');
    for (let i = 0; i < 12_000; i++) {
      limiter.fail(`client:spray-${i}|address:198.51.100.${i % 250}`);
      // The guesser keeps guessing: each failure keeps its lock-out among the newest keys.
      if (i % 1000 === 0) limiter.fail('client:victim|address:203.0.113.9');
    }
    expect(limiter.size).toBe(10_000);
    expect(limiter.retryAfter('client:victim|address:203.0.113.9')).toBe(60);
  });
});

describe('issue 22, item 7: the token endpoint', () => {
  const clients = [{ clientId: 'school-app', secret: 'right-secret', merchants: [] }];
  const form = (secret: string) =>
    `grant_type=client_credentials&client_id=school-app&client_secret=${secret}`;
  let issuer: TokenIssuer;
  beforeAll(async () => {
    issuer = tokenIssuer(await loadOrCreateKey(undefined), 'http://issuer', 'scope/api', clients);
  });

  test('wrong secrets from one address lock out that address, never the right secret from another', async () => {
    const from = (secret: string, address: string) => issuer.token({}, form(secret), address);
    for (let i = 0; i < TOKEN_ATTEMPTS.perClient; i++)
      expect((await from(`guess-${i}`, '198.51.100.7')).status).toBe(401);
    expect((await from('right-secret', '198.51.100.7')).status).toBe(429);
    expect((await from('right-secret', '203.0.113.20')).status).toBe(200);
    expect((await from('guess-again', '203.0.113.20')).status).toBe(401);
  });
});
