/**
 * Webhook rules without I/O (issue 18): the secret's form, the Standard Webhooks signature (made by
 * the standardwebhooks library, checked here against the standard's definition and its verifier),
 * the retry schedule, what an answer means, the breaker, who receives an event, the address rules,
 * sealed secrets and the queue's messages.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { RETRY_DELAYS_SECONDS } from '#contract/webhooks';
import { eventEnabled } from '#domain/events';
import { forbiddenAddress, urlProblem } from '#domain/webhook-addresses';
import {
  breakerRetryAfter,
  newSecret,
  outcomeOf,
  receives,
  retryDelaySeconds,
  scheduleSpanMs,
  signatureHeader,
  webhookHeaders,
} from '#domain/webhooks';
import { FileSecretBox } from '#shared/secret-box';
import { parseWebhookMessage } from '#shared/webhook-queue';

describe('secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, never the same twice', () => {
    const secrets = Array.from({ length: 50 }, () => newSecret());
    for (const s of secrets) {
      expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(50);
  });

  it('are sealed with AES-GCM locally: they open only with their own context, and tampering is detected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'box-'));
    writeFileSync(join(dir, 'key'), Buffer.alloc(32, 9).toString('base64'));
    const box = new FileSecretBox(join(dir, 'key'));
    const secret = newSecret();
    const context = { merchantId: '32350000001', webhookEndpointId: 'e-1' };
    const sealed = await box.seal(secret, context);
    expect(sealed).not.toContain(secret.slice(6));
    expect(await box.open(sealed, context)).toBe(secret);
    await expect(box.open(sealed, { ...context, webhookEndpointId: 'e-2' })).rejects.toThrow();
    const bytes = Buffer.from(sealed.slice(7), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    await expect(box.open(`aesgcm:${bytes.toString('base64')}`, context)).rejects.toThrow();
  });
});

describe('signatures', () => {
  const id = 'evt_0193c2a45b1e7c3d8e4f5a6b7c8d9e06';
  const at = new Date('2030-05-20T15:04:05.000Z');
  const body = '{"id":"evt_0193c2a45b1e7c3d8e4f5a6b7c8d9e06","type":"group.created"}';

  it('are v1, and the base64 HMAC-SHA256 of {id}.{timestamp}.{body} keyed with the secret bytes', () => {
    const secret = newSecret();
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`)
      .digest('base64');
    expect(signatureHeader([secret], id, at, body)).toBe(`v1,${expected}`);
  });

  it('verify with the standardwebhooks package, one entry per secret during a rotation', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const now = new Date();
    const headers = webhookHeaders([current, previous], id, now, body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe(id);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('the retry schedule', () => {
  it('retries first within 60 seconds, waits longer each time, spans at least 24 hours, then gives up', () => {
    const waits = RETRY_DELAYS_SECONDS.map((_, i) => retryDelaySeconds(i + 1, 1, () => 0)!);
    expect(waits[0]).toBeLessThanOrEqual(60);
    for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS.length + 1)).toBeUndefined();
  });

  it('spreads waits from 5 minutes on by at most 10%, and scales for tests', () => {
    expect(retryDelaySeconds(1, 1, () => 0.99)).toBe(5);
    expect(retryDelaySeconds(2, 1, () => 0.99)).toBeCloseTo(300 * 1.099);
    expect(retryDelaySeconds(2, 0.01, () => 0)).toBe(3);
  });

  it("bounds a delivery's life by the schedule's span, at least 24 hours, scaled like it", () => {
    expect(scheduleSpanMs()).toBe(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) * 1000);
    expect(scheduleSpanMs()).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(scheduleSpanMs(0.001)).toBeCloseTo(scheduleSpanMs() / 1000);
  });

  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [410, 'gone'],
    [301, 'retry'],
    [302, 'retry'],
    [400, 'retry'],
    [404, 'retry'],
    [500, 'retry'],
    [undefined, 'retry'],
  ] as const)('answer %s is %s', (status, outcome) => {
    expect(outcomeOf(status)).toBe(outcome);
  });

  it('opens the breaker after 5 failures in a row, for 10 s doubling to 5 minutes', () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    expect(breakerRetryAfter(4, now)).toBeUndefined();
    expect(breakerRetryAfter(5, now)).toBe('2030-01-01T00:00:10.000Z');
    expect(breakerRetryAfter(6, now)).toBe('2030-01-01T00:00:20.000Z');
    expect(breakerRetryAfter(30, now)).toBe('2030-01-01T00:05:00.000Z');
  });
});

describe('who receives an event', () => {
  const endpoint = {
    status: 'enabled' as const,
    dateCreated: '2030-01-01T00:00:00.000Z',
    enabledEvents: ['group.*', 'payment.approved'],
  };
  const at = '2030-01-02T00:00:00.000Z';
  it.each([
    ['group.created', at, true],
    ['payment.approved', at, true],
    ['payment.declined', at, false],
    ['group.created', '2029-12-31T23:59:59.999Z', false],
  ])('%s at %s: %s', (type, createdAt, yes) => {
    expect(receives(endpoint, { type, createdAt }, eventEnabled)).toBe(yes);
  });
  it('nothing when disabled; everything with *', () => {
    expect(
      receives({ ...endpoint, status: 'disabled' }, { type: 'group.created', createdAt: at }, eventEnabled),
    ).toBe(false);
    expect(
      receives({ ...endpoint, enabledEvents: ['*'] }, { type: 'refund.failed', createdAt: at }, eventEnabled),
    ).toBe(true);
  });
});

describe('addresses', () => {
  it.each([
    ['8.8.8.8', undefined],
    ['2606:4700::1111', undefined],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:192.168.1.1', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['172.31.0.1', 'a private address'],
    ['172.32.0.1', undefined],
    ['169.254.169.254', 'a link-local address (the instance metadata address among them)'],
    ['100.127.0.1', 'a carrier-grade NAT address'],
    ['fc00::1', 'a unique-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['::', 'an unspecified address'],
    ['ff02::1', 'a multicast address'],
    ['64:ff9b::a00:1', 'a NAT64 address'],
  ])('%s: %s', (address, why) => {
    expect(forbiddenAddress(address)).toBe(why);
  });

  it.each([
    ['https://hooks.example.com/in?x=1', false, undefined],
    ['http://hooks.example.com/in', false, 'must use https'],
    ['https://hooks.example.com/in#frag', false, 'must not have a fragment (#...)'],
    ['https://a:b@hooks.example.com/', false, 'must not hold a user name or password'],
    ['https://8.8.8.8/', false, 'must name a host, not an IP address'],
    ['https://[2606:4700::1111]/', false, 'must name a host, not an IP address'],
    ['https://2130706433/', false, 'must name a host, not an IP address'],
    ['https://intranet/', false, 'must name a fully qualified host'],
    ['http://127.0.0.1:4000/in', false, 'must use https'],
    ['http://127.0.0.1:4000/in', true, undefined],
    ['http://localhost:4000/in', true, undefined],
    ['http://127.0.0.2:4000/in', true, 'must use https'],
    ['not a url', true, 'is not a valid URL'],
  ])('%s (loopback allowed: %s): %s', (url, allowLoopback, problem) => {
    expect(urlProblem(url, { allowLoopback })).toBe(problem);
  });
});

describe('queue messages', () => {
  it('parses the three kinds and refuses anything else', () => {
    const delivery = { kind: 'delivery', webhookEndpointId: 'e', objectId: 'o', sequence: 2 };
    expect(parseWebhookMessage(JSON.stringify(delivery))).toEqual(delivery);
    for (const junk of [
      {},
      { kind: 'delivery', sequence: 0 },
      { kind: 'event' },
      { kind: 'replay', since: 'x' },
    ])
      expect(() => parseWebhookMessage(JSON.stringify(junk))).toThrow('not a webhook message');
  });
});
