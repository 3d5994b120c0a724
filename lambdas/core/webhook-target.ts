/**
 * Where a webhook may go, with DNS (docs/decisions.md "Where a webhook may go"): the URL's rules
 * (domain/webhook-addresses.ts), then its host resolved and every address checked; the answer
 * names the address to connect to, so that the attempt connects to what was checked. Run at
 * create and update (a refusal is a 400 naming `url`) and before every attempt (DNS can change).
 * The resolver is the system's (getaddrinfo, as a connection would use); tests inject their own.
 */
import { lookup } from 'node:dns/promises';
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

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

let resolver: Resolver = systemResolver;

/** Test hook: resolve names with this (undefined: the system's resolver again). */
export const useResolver = (r: Resolver | undefined): void => {
  resolver = r ?? systemResolver;
};

type Target = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

const resolveWithin = (host: string): Promise<Resolved[]> =>
  withTimeout(resolver(host), RESOLVE_TIMEOUT_MS, () => {
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
