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

export interface SigningKey {
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
  ): Promise<{ status: number; body: object }>;
  /** Verifies a bearer header like the Cognito authorizer: claims, or the status to answer. */
  verify(
    authorization: string | undefined,
  ): Promise<{ claims: Record<string, string> } | { status: 401 | 403; message: string }>;
}

const safeEqual = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function tokenIssuer(
  key: SigningKey,
  issuer: string,
  scope: string,
  clients: readonly LocalClient[],
): TokenIssuer {
  const oauthError = (status: number, error: string) => ({ status, body: { error } });
  const verified = new Map<string, { claims: Record<string, string>; exp: number }>();
  return {
    async token(headers, raw) {
      const form = new URLSearchParams(raw);
      let clientId = form.get('client_id') ?? '';
      let secret = form.get('client_secret') ?? '';
      const basic = /^Basic (.+)$/i.exec(String(headers.authorization ?? ''));
      if (basic) {
        const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        clientId = decodeURIComponent(decoded.slice(0, colon));
        secret = decodeURIComponent(decoded.slice(colon + 1));
      }
      if (form.get('grant_type') !== 'client_credentials') return oauthError(400, 'unsupported_grant_type');
      const client = clients.find((c) => c.clientId === clientId);
      if (!client || !safeEqual(client.secret, secret)) return oauthError(401, 'invalid_client');
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
        ({ payload } = await jwtVerify(match[1]!, key.publicKey, { issuer, algorithms: ['RS256'] }));
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
