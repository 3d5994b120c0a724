/** A small HTTP client for the end-to-end tier: real tokens, real requests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, importJWK } from 'jose';

export const baseUrl = (): string => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set: the e2e global setup did not run');
  return url;
};

export const TESTER = { id: 'local-tester', secret: 'local-tester-secret' };
export const OTHER = { id: 'local-other', secret: 'local-other-secret' };
export const MID = '32350000001';
export const MID8 = '23500001';
export const OTHER_MID = '32350000002';
export const PROD_LIKE_MID = '41000000001';

const tokens = new Map<string, string>();

export async function tokenFor(client = TESTER): Promise<string> {
  const cached = tokens.get(client.id);
  if (cached) return cached;
  const res = await fetch(`${baseUrl()}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  const { access_token } = (await res.json()) as { access_token: string };
  tokens.set(client.id, access_token);
  return access_token;
}

/** Signs a token with the runtime's own key: for expired / wrong-scope cases. */
export async function signToken(claims: Record<string, unknown>, expiresInSeconds = 3600): Promise<string> {
  const jwk = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'local-signing-key.json'), 'utf8'));
  const key = await importJWK(jwk, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ token_use: 'access', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
    .setIssuer(`${baseUrl()}/local-user-pool`)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + expiresInSeconds)
    .sign(key);
}

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export async function call<T = any>(
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string | null; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const token = options.token === undefined ? await tokenFor() : options.token;
  const res = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: {
      ...options.headers,
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...((body !== undefined || options.raw !== undefined) && { 'content-type': 'application/json' }),
    },
    body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

/** A schedule slot safely in the future (tomorrow UTC unless given). */
export function futureDate(daysAhead = 1): string {
  return new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
}
