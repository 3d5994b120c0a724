/**
 * The local stand-in for Cognito: a client-credentials token endpoint issuing RS256 access
 * tokens with Cognito's claims, and the verification the REST API's Cognito authorizer does
 * (signature, expiry, issuer, token_use, scope). The signing key is kept in the data directory
 * so tokens survive a restart (and tests can sign tokens of their own with it).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { dirname } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { TOKEN_VALIDITY_SECONDS } from '../../contract/stage';
import type { LocalClient } from './identities';

type Key = Awaited<ReturnType<typeof importJWK>>;

interface SigningKey {
  readonly kid: string;
  readonly privateKey: Key;
  readonly publicKey: Key;
}

export async function loadOrCreateKey(file: string | undefined): Promise<SigningKey> {
  if (file && existsSync(file)) {
    const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK & { kid: string };
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
    return {
      kid: jwk.kid,
      privateKey: await importJWK(jwk, 'RS256'),
      publicKey: await importJWK(pub, 'RS256'),
    };
  }
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'RS256' }), {
      mode: 0o600,
    });
  }
  return { kid, privateKey, publicKey };
}

export interface TokenIssuer {
  /** Handles `POST /oauth2/token`: returns status and JSON body (OAuth 2.0 error shapes). */
  token(
    headers: Record<string, string | string[] | undefined>,
    body: string,
    remoteAddress?: string,
  ): Promise<{ status: number; body: object; headers: Record<string, string> }>;
  /** Verifies a bearer header like the Cognito authorizer: claims, or the status to answer. */
  verify(
    authorization: string | undefined,
  ): Promise<{ claims: Record<string, string> } | { status: 401 | 403; message: string }>;
}

/** `id:secret` of an HTTP Basic header, each form-urlencoded (RFC 6749 2.3.1); undefined if malformed. */
function basicCredentials(encoded: string): { clientId: string; secret: string } | undefined {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined; // a bad percent-escape: URIError
  }
}

const safeEqual = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Counts failed client authentications per key in a fixed window (issue 22, item 7). A key with
 * `limit` failures is refused until its window ends, correct credentials included, so a guesser
 * gains nothing by continuing. The map is bounded: at `capacity` keys a new key evicts the one
 * whose last failure is the oldest, one for one; it is never emptied, so spraying new keys cannot
 * reset the lock-outs of the keys that keep failing (each failure makes its key the newest).
 */
export class FailedAttemptLimiter {
  private readonly failures = new Map<string, { count: number; until: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly capacity = 10_000,
  ) {}

  /** Seconds until `key` may try again, or 0. */
  retryAfter(key: string): number {
    const entry = this.failures.get(key);
    if (!entry || entry.until <= this.now()) return 0;
    return entry.count >= this.limit ? Math.ceil((entry.until - this.now()) / 1000) : 0;
  }

  fail(key: string): void {
    const now = this.now();
    const live = this.failures.get(key);
    // Taken out and put back: the map's order is the order of last failures, oldest first.
    this.failures.delete(key);
    if (live && live.until > now) {
      live.count++;
      this.failures.set(key, live);
      return;
    }
    // At capacity the key whose last failure is the oldest goes, one for one; never all of them.
    while (this.failures.size >= this.capacity) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, { count: 1, until: now + this.windowMs });
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  /** Keys held now (tests). */
  get size(): number {
    return this.failures.size;
  }
}

/**
 * Cognito throttles its token endpoint; locally: 5 failures per client id from one address, 50 per
 * address (spraying client ids), each for a minute. Failures are counted per client *and* address:
 * wrong secrets sent for a client from one address lock out that client from that address only,
 * never the client's right secret from another.
 */
export const TOKEN_ATTEMPTS = { perClient: 5, perAddress: 50, windowMs: 60_000 };

export function tokenIssuer(
  key: SigningKey,
  issuer: string,
  scope: string,
  clients: readonly LocalClient[],
): TokenIssuer {
  // RFC 6749 5.1: token responses must not be cached.
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const oauthError = (status: number, error: string, headers: Record<string, string> = {}) => ({
    status,
    body: { error },
    headers: { ...noStore, ...headers },
  });
  const verified = new Map<string, { claims: Record<string, string>; exp: number }>();
  const byClient = new FailedAttemptLimiter(TOKEN_ATTEMPTS.perClient, TOKEN_ATTEMPTS.windowMs);
  const byAddress = new FailedAttemptLimiter(TOKEN_ATTEMPTS.perAddress, TOKEN_ATTEMPTS.windowMs);
  return {
    async token(headers, raw, remoteAddress = 'unknown') {
      const form = new URLSearchParams(raw);
      let credentials: { clientId: string; secret: string } | undefined = {
        clientId: form.get('client_id') ?? '',
        secret: form.get('client_secret') ?? '',
      };
      const basic = /^Basic (.+)$/i.exec(String(headers.authorization ?? ''));
      if (basic) credentials = basicCredentials(basic[1]!);
      if (form.get('grant_type') !== 'client_credentials') return oauthError(400, 'unsupported_grant_type');
      const clientKey = `client:${credentials?.clientId ?? ''}|address:${remoteAddress}`;
      const addressKey = `address:${remoteAddress}`;
      const wait = Math.max(byClient.retryAfter(clientKey), byAddress.retryAfter(addressKey));
      if (wait > 0) return oauthError(429, 'too_many_requests', { 'retry-after': String(wait) });
      const client = clients.find((c) => c.clientId === credentials?.clientId);
      if (!credentials || !client || !safeEqual(client.secret, credentials.secret)) {
        byClient.fail(clientKey);
        byAddress.fail(addressKey);
        return oauthError(401, 'invalid_client');
      }
      byClient.clear(clientKey);
      const requested = form.get('scope');
      if (requested !== null && requested.split(' ').some((s) => s !== scope))
        return oauthError(400, 'invalid_scope');
      const now = Math.floor(Date.now() / 1000);
      const accessToken = await new SignJWT({
        client_id: client.clientId,
        token_use: 'access',
        scope,
        auth_time: now,
        version: 2,
      })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid })
        .setSubject(client.clientId)
        .setIssuer(issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_VALIDITY_SECONDS)
        .setJti(randomUUID())
        .sign(key.privateKey);
      return {
        status: 200,
        body: { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_VALIDITY_SECONDS },
        headers: noStore,
      };
    },

    async verify(authorization) {
      const match = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization ?? '');
      if (!match) return { status: 401, message: 'Unauthorized' };
      // Like API Gateway's authorizer cache: a token verified once is trusted until it expires.
      const cached = verified.get(match[1]!);
      if (cached && cached.exp * 1000 > Date.now()) return { claims: cached.claims };
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(match[1]!, key.publicKey, {
          issuer,
          algorithms: ['RS256'],
          // Cognito access tokens always expire; one without `exp` was not issued by the pool.
          requiredClaims: ['exp'],
        }));
      } catch {
        return { status: 401, message: 'Unauthorized' };
      }
      if (payload.token_use !== 'access') return { status: 401, message: 'Unauthorized' };
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      if (!scopes.includes(scope)) return { status: 403, message: `token lacks the scope ${scope}` };
      // API Gateway hands claims to Lambda as strings.
      const claims = Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, String(v)]));
      if (verified.size >= 1000) verified.clear();
      verified.set(match[1]!, { claims, exp: Number(payload.exp) });
      return { claims };
    },
  };
}
