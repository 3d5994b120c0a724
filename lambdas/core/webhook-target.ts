/**
 * Where a webhook may go, with DNS (docs/decisions.md "Where a webhook may go"): the URL's rules
 * (domain/webhook-addresses.ts), then its host resolved and every address checked; the answer
 * names the address to connect to, so that the attempt connects to what was checked. Run at
 * create and update (a refusal is a 400 naming `url`) and before every attempt (DNS can change).
 * Names are resolved by a resolver of their own (c-ares, on the event loop, asking the system's
 * servers from resolv.conf), not by getaddrinfo: getaddrinfo holds one of libuv's four pool
 * threads for as long as the merchant's nameserver makes it wait, past the timeout below, so a few
 * hosts whose DNS never answers held up every other resolution, file read and key derivation of
 * the container. A resolution given up at the timeout is cancelled. `localhost` (the local
 * runtime's) is read from the hosts file. Tests inject their own resolver or servers.
 */
import { lookup, Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  forbiddenAddress,
  isLoopback,
  LOOPBACK_HOSTS,
  urlProblem,
  type UrlRules,
} from '#domain/webhook-addresses';
import { withTimeout } from '#shared/clock';
import { config } from '#shared/config';

interface Resolved {
  address: string;
  family: 4 | 6;
}

type Resolver = (host: string) => Promise<Resolved[]>;

/** A name that takes longer than this to resolve is refused (a create waits for it). */
const RESOLVE_TIMEOUT_MS = 3000;

/** Answers that say the name has no address of a family (or none at all), not that DNS failed. */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/** The DNS servers to ask (`ip[:port]`): undefined for the system's. */
let dnsServers: string[] | undefined;
/** When the service's resolver gives a name up (tests shorten it). */
let giveUpMs = RESOLVE_TIMEOUT_MS;

/** A's and AAAA records, asked at once; a family that fails (not "no such record") is left out. */
const dnsResolver: Resolver = async (host) => {
  if (host === 'localhost')
    return (await lookup(host, { all: true, verbatim: true })).map((a) => ({
      address: a.address,
      family: a.family === 6 ? 6 : 4,
    }));
  // One resolver a name, so that giving it up cancels its queries alone.
  const dns = new DnsResolver({ timeout: giveUpMs, tries: 1 });
  if (dnsServers !== undefined) dns.setServers(dnsServers);
  const families = Promise.allSettled([
    dns.resolve4(host).then((all) => all.map((address): Resolved => ({ address, family: 4 }))),
    dns.resolve6(host).then((all) => all.map((address): Resolved => ({ address, family: 6 }))),
  ]);
  // At the timeout the queries still unanswered are cancelled: they fail with ECANCELLED.
  await withTimeout<unknown>(families, giveUpMs, () => {
    dns.cancel();
    return undefined;
  });
  const settled = await families;
  const failed = settled.filter((f): f is PromiseRejectedResult => f.status === 'rejected');
  const answered = settled.filter((f) => f.status === 'fulfilled').flatMap((f) => f.value);
  if (
    answered.length === 0 &&
    failed.some((f) => !NO_ADDRESS.has((f.reason as { code?: string }).code ?? ''))
  )
    throw new Error('no answer');
  return answered;
};

let resolver: Resolver = dnsResolver;

/** Test hook: resolve names with this (undefined: the system's resolver again). */
export const useResolver = (r: Resolver | undefined): void => {
  resolver = r ?? dnsResolver;
};

/**
 * Test hook: the service's resolver asks these servers (undefined: the system's again) and gives a
 * name up after `ms` (RESOLVE_TIMEOUT_MS by default).
 */
export const useDnsServers = (servers: string[] | undefined, ms = RESOLVE_TIMEOUT_MS): void => {
  dnsServers = servers;
  giveUpMs = ms;
};

type Target = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Any resolver's bound. The service's gives up by itself at RESOLVE_TIMEOUT_MS and keeps what was
 * answered by then (its cancelled queries settle a turn of the event loop later): this one comes
 * after it.
 */
const resolveWithin = (host: string): Promise<Resolved[]> =>
  withTimeout(resolver(host), RESOLVE_TIMEOUT_MS + 1000, () => {
    throw new Error('timeout');
  });

/** The configured rules: the local runtime alone allows loopback (WEBHOOK_ALLOW_LOOPBACK). */
const configuredRules = (): UrlRules => ({ allowLoopback: config().webhookAllowLoopback });

/**
 * The URL checked and its address chosen, or the reason (`url <reason>` in a 400). Every address
 * the host resolves to must be allowed; an IPv4 one is preferred.
 */
export async function checkTarget(raw: string, rules: UrlRules = configuredRules()): Promise<Target> {
  const problem = urlProblem(raw, rules);
  if (problem !== undefined) return { ok: false, reason: problem };
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Resolved[];
  const literal = isIP(host);
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolveWithin(host);
    } catch {
      return { ok: false, reason: `host ${host} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
  const loopbackHost = rules.allowLoopback && (LOOPBACK_HOSTS as readonly string[]).includes(url.hostname);
  for (const { address } of addresses) {
    if (loopbackHost && isLoopback(address)) continue;
    const why = forbiddenAddress(address);
    if (why !== undefined) return { ok: false, reason: `host ${host} resolves to ${why}` };
  }
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0]!;
  return { ok: true, url, address: chosen.address, family: chosen.family };
}
