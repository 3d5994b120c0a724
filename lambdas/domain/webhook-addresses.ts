/**
 * Where a webhook may go (docs/decisions.md "Where a webhook may go"): plain rules on a URL and on
 * the addresses its host resolves to, no I/O. The delivery connects to an address these rules
 * accepted (core/webhook-target.ts), so a DNS answer that changes between the check and the
 * connection cannot send it elsewhere.
 */
import { BlockList, isIP } from 'node:net';

/** Ranges no webhook may reach, each with the words of the refusal. */
const FORBIDDEN: readonly [cidr: string, what: string][] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (the instance metadata address among them)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
  ['::1/128', 'a loopback address'],
  ['::/128', 'an unspecified address'],
  ['::/96', 'an IPv4-compatible address'],
  ['64:ff9b::/96', 'a NAT64 address'],
  ['64:ff9b:1::/48', 'a NAT64 address'],
  ['100::/64', 'a discard address'],
  ['2001::/32', 'a Teredo address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2002::/16', 'a 6to4 address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
];

const LISTS = FORBIDDEN.map(([cidr, what]) => {
  const [network, prefix] = cidr.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return { list, what, family: isIP(network) === 6 ? ('ipv6' as const) : ('ipv4' as const) };
});

/** The 16 bytes of an IPv6 address (`::`, and a dotted IPv4 tail, allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address; anything else unchanged. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const bytes = ipv6Bytes(address);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12).join('.') : address;
}

/** Loopback: 127.0.0.0/8 and ::1 (mapped forms included). */
export function isLoopback(address: string): boolean {
  const plain = unmapped(address);
  return isIP(plain) === 4
    ? plain.startsWith('127.')
    : ipv6Bytes(plain).every((b, i) => b === (i === 15 ? 1 : 0));
}

/** Why a webhook may not go to `address` (an IP address), or undefined when it may. */
export function forbiddenAddress(address: string): string | undefined {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return 'not an IP address';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const { list, what, family: f } of LISTS) if (f === type && list.check(plain, type)) return what;
  return undefined;
}

/** The local runtime's exception (WEBHOOK_ALLOW_LOOPBACK): these hosts over http or https. */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'] as const;

export interface UrlRules {
  /** The local runtime only: `http(s)://127.0.0.1:<port>` and `http(s)://localhost:<port>` too. */
  allowLoopback: boolean;
}

/**
 * The URL's own problem, before any DNS: `url <reason>` is the 400's message. Accepted URLs are
 * https on a host name, no credentials; with `allowLoopback`, also the loopback hosts (any scheme
 * of the two).
 */
export function urlProblem(raw: string, rules: UrlRules): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  const loopbackHost = rules.allowLoopback && (LOOPBACK_HOSTS as readonly string[]).includes(url.hostname);
  if (url.protocol !== 'https:' && !(loopbackHost && url.protocol === 'http:')) return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (url.hash !== '') return 'must not have a fragment (#...)';
  if (loopbackHost) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return 'must name a host, not an IP address';
  if (!host.includes('.')) return 'must name a fully qualified host';
  return undefined;
}
