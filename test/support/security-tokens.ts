/**
 * Forged and mis-scoped bearer tokens for the security matrix, made with the local runtime's own
 * signing key (lib/local/auth.ts keeps it in the data directory) unless the forgery is the point.
 */
import { createHmac, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK } from 'jose';
import { apiScope } from '#contract/stage';
import { baseUrl, OTHER, TESTER, tokenFor } from '#support/api';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Claims {
  issuer?: string;
  scope?: string;
  /** Seconds from now; null: no `exp` claim at all. */
  expiresIn?: number | null;
}

function signingJwk(): JWK & { kid: string } {
  return JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'local-signing-key.json'), 'utf8'));
}

async function signed({ issuer, scope = apiScope('dev'), expiresIn = 3600 }: Claims): Promise<string> {
  const jwk = signingJwk();
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ token_use: 'access', client_id: TESTER.id, scope })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
    .setSubject(TESTER.id)
    .setIssuer(issuer ?? `${baseUrl()}/local-user-pool`)
    .setIssuedAt(now - 120);
  if (expiresIn !== null) jwt.setExpirationTime(now + expiresIn);
  return jwt.sign(await importJWK(jwk, 'RS256'));
}

/** The classic key-confusion forgery: HS256 with the RSA public key (PEM) as the HMAC secret. */
function hs256WithPublicKey(payload: Record<string, unknown>): string {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = signingJwk();
  const pem = createPublicKey({ key: pub, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const input = `${b64url({ alg: 'HS256', typ: 'JWT', kid: pub.kid })}.${b64url(payload)}`;
  return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
}

type TokenCase =
  | 'no token'
  | 'expired'
  | 'bad signature'
  | 'alg none'
  | 'HS256 signed with the public key'
  | 'wrong issuer'
  | 'wrong scope'
  | 'no exp'
  | "another client's token";

/** Each case with the bearer token it sends (null: no Authorization header) and its status. */
export async function tokenCases(): Promise<{ name: TokenCase; token: string | null; status: number }[]> {
  const valid = await tokenFor(TESTER);
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const flipped = `${signature.slice(0, -6)}${signature.slice(-6).split('').reverse().join('')}`;
  return [
    { name: 'no token', token: null, status: 401 },
    { name: 'expired', token: await signed({ expiresIn: -60 }), status: 401 },
    {
      name: 'bad signature',
      token: `${header}.${payload}.${flipped === signature ? 'AAAA' : flipped}`,
      status: 401,
    },
    { name: 'alg none', token: `${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`, status: 401 },
    { name: 'HS256 signed with the public key', token: hs256WithPublicKey(claims), status: 401 },
    {
      name: 'wrong issuer',
      token: await signed({ issuer: 'https://cognito-idp.example/evil' }),
      status: 401,
    },
    { name: 'wrong scope', token: await signed({ scope: apiScope('prod') }), status: 403 },
    { name: 'no exp', token: await signed({ expiresIn: null }), status: 401 },
    { name: "another client's token", token: await tokenFor(OTHER), status: 403 },
  ];
}
