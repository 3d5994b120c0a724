/**
 * Keyed hashes of values the service must find again but not keep as written: the idempotency
 * keys of requests (docs/decisions.md "Idempotency keys are kept by a keyed hash") and the hash of
 * the request each key was first used with (a payor's or method's request holds a card or account
 * number: an unkeyed hash of it, beside the last four digits kept on the method, could be searched
 * back to the number). HMAC-SHA256
 * under a key the service alone holds, named by configuration as the webhook secrets' key is
 * (IDEMPOTENCY_HASH_KEY), so that no handler has a local branch:
 *
 * - `secretsmanager:<secret ARN>` (the cloud): the secret's string, read once per container;
 * - `file:<path>` (the local runtime, tests): the file's text (made by the runtime in its data
 *   directory).
 *
 * The key never changes while a record made under it lives (a record found under another key's
 * digest would be a missed replay, and a missed replay is a second charge): it has no rotation.
 */
import { createHmac } from 'node:crypto';
import { needed } from './config';
import { ServiceUnavailableError } from './errors';
import { readSecretSetting } from './secret-setting';

/** A key shorter than this is refused: HMAC-SHA256 wants at least its output's 32 bytes. */
const MIN_KEY_BYTES = 32;

/** The digest of `parts` (in order, each delimited) under `key`: 43 characters of base64url. */
export function keyedDigest(key: Uint8Array, parts: readonly string[]): string {
  return createHmac('sha256', key).update(JSON.stringify(parts)).digest('base64url');
}

/** The key a setting names, as bytes; throws when it cannot be read or is too short. */
export async function hashKeyOf(setting: string): Promise<Buffer> {
  const key = Buffer.from(await readSecretSetting(setting, 'IDEMPOTENCY_HASH_KEY'), 'utf8');
  if (key.length < MIN_KEY_BYTES)
    throw new Error(`the idempotency hash key has fewer than ${MIN_KEY_BYTES} bytes`);
  return key;
}

let loading: Promise<Buffer> | undefined;

/** The configured key, read on first use and kept for the container's life (a failed read is retried). */
function idempotencyHashKey(): Promise<Buffer> {
  loading ??= hashKeyOf(needed('idempotencyHashKey')).catch((error: unknown) => {
    loading = undefined;
    // Nothing was done yet: the request may be sent again as it is (the cause is logged as such).
    throw Object.assign(
      new ServiceUnavailableError('the idempotency keys cannot be checked now; retry the request'),
      { cause: error },
    );
  });
  return loading;
}

/** The digest an idempotency key is kept by: bound to its merchant and scope. */
export async function idempotencyKeyDigest(merchantId: string, scope: string, key: string): Promise<string> {
  return keyedDigest(await idempotencyHashKey(), [merchantId, scope, key]);
}

/**
 * The digest a request is kept by beside its idempotency key: of its canonical JSON, under the
 * same key (the part `request` keeps it apart from the keys' digests, which have three parts).
 */
export async function requestDigest(canonical: string): Promise<string> {
  return keyedDigest(await idempotencyHashKey(), ['request', canonical]);
}
