/**
 * Idempotency records of the e2e runtime's table, as the store keys them: by the keyed hash of the
 * key under the runtime's key file (lambdas/shared/keyed-hash.ts, lib/local/idempotency-key.ts), and
 * as records made before keys were hashed were keyed (by the key as written).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IDEMPOTENCY_HASH_KEY_FILE } from '#lib/local/idempotency-key';
import { keyedDigest } from '#shared/keyed-hash';
import { keys } from '#store/keys';

/** The record of `key` in the worker's runtime (E2E_DATA_DIR). */
export function idempotencyRecordKey(merchantId: string, scope: string, key: string) {
  const secret = readFileSync(join(process.env.E2E_DATA_DIR!, IDEMPOTENCY_HASH_KEY_FILE), 'utf8').trim();
  return keys.idempotency(
    merchantId,
    scope,
    keyedDigest(Buffer.from(secret, 'utf8'), [merchantId, scope, key]),
  );
}
