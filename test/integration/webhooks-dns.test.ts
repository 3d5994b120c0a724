/**
 * A webhook host's name resolved by the service's own resolver against a real DNS server on
 * loopback (test/support/dns-server.ts): a merchant's nameserver that never answers costs its own
 * resolution and nothing else, and the addresses a name has are all checked.
 */
import { pbkdf2 } from 'node:crypto';
import { checkTarget, useDnsServers } from '#core/webhook-target';
import { startDnsServer, type DnsServer } from '#support/dns-server';

const cloud = { allowLoopback: false };
let dns: DnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    answers: {
      'hooks.merchant.test': ['93.184.216.34', '2606:2800:220:1::1'],
      'v6.merchant.test': ['2606:2800:220:1::2'],
      'mixed.merchant.test': ['93.184.216.35', 'fd00::1'],
      'a-only.merchant.test': ['93.184.216.36'],
    },
    silent: (name, type) =>
      name.endsWith('.hangs.test') || (name === 'a-only.merchant.test' && type === 'AAAA'),
  });
  // Names given up after half a second (the service's 3 s is a constant of the same code path).
  useDnsServers([dns.address], 500);
});
afterAll(async () => {
  await dns.close();
  useDnsServers(undefined);
});

/** Runs `work`, recording in `order` the name it settled under. */
const settle = <T>(order: string[], name: string, work: Promise<T>): Promise<T> =>
  work.finally(() => order.push(name));

test(
  "Defect: a webhook host whose DNS never answers held a thread of the container's pool, so a few such " +
    "hosts held up every other endpoint's resolution",
  async () => {
    const order: string[] = [];
    // Six hosts whose nameserver never answers, more than libuv's four threads, then a good one.
    const hanging = Array.from({ length: 6 }, (_, i) =>
      settle(order, `hang${i}`, checkTarget(`https://hook${i}.hangs.test/in`, cloud)),
    );
    const good = settle(order, 'good', checkTarget('https://hooks.merchant.test/in', cloud));
    expect(await good).toMatchObject({ ok: true, address: '93.184.216.34', family: 4 });
    // The good host was answered while every hanging one still waited.
    expect(order).toEqual(['good']);
    for (const [i, result] of (await Promise.all(hanging)).entries())
      expect(result).toEqual({ ok: false, reason: `host hook${i}.hangs.test does not resolve` });
    // Each hanging name was asked once a family (no retry) and given up at the give-up time.
    for (let i = 0; i < 6; i++)
      for (const type of ['A', 'AAAA']) expect(dns.queries.get(`${type} hook${i}.hangs.test`)).toBe(1);
  },
  15_000,
);

test("a host's resolution does not wait for the thread pool's other work (key derivation, files)", async () => {
  const order: string[] = [];
  // Four key derivations (a fifth of a second each here) fill libuv's default pool.
  const busy = Array.from({ length: 4 }, (_, i) =>
    settle(
      order,
      `pool${i}`,
      new Promise((resolve, reject) =>
        pbkdf2('secret', 'salt', 200_000, 32, 'sha512', (e, key) => (e ? reject(e) : resolve(key))),
      ),
    ),
  );
  const resolved = await settle(order, 'resolved', checkTarget('https://hooks.merchant.test/in', cloud));
  expect(resolved).toMatchObject({ ok: true, address: '93.184.216.34' });
  await Promise.all(busy);
  expect(order[0]).toBe('resolved');
});

test('a name whose AAAA query is never answered is used by its A records, checked', async () => {
  expect(await checkTarget('https://a-only.merchant.test/in', cloud)).toMatchObject({
    ok: true,
    address: '93.184.216.36',
    family: 4,
  });
});

test('every address of a name is checked: IPv4 preferred, an IPv6-only host, a refused AAAA record', async () => {
  expect(await checkTarget('https://v6.merchant.test/in', cloud)).toMatchObject({
    ok: true,
    address: '2606:2800:220:1::2',
    family: 6,
  });
  expect(await checkTarget('https://mixed.merchant.test/in', cloud)).toEqual({
    ok: false,
    reason: 'host mixed.merchant.test resolves to a unique-local address',
  });
  expect(await checkTarget('https://nowhere.merchant.test/in', cloud)).toEqual({
    ok: false,
    reason: 'host nowhere.merchant.test does not resolve',
  });
});
