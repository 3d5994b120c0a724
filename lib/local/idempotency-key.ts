/**
 * The local runtime's idempotency hash key (lambdas/shared/keyed-hash.ts): a random key in a file
 * of the data directory, made on first start and readable by its owner only, kept with the table
 * it keys (a new key would leave the records of earlier runs unfound).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key file's name in the data directory (the e2e tests read records by it). */
export const IDEMPOTENCY_HASH_KEY_FILE = 'idempotency-hash.key';

/** The functions' IDEMPOTENCY_HASH_KEY locally: the data directory's key file. */
export function localIdempotencyEnv(dataDir: string): Record<string, string> {
  const keyFile = join(dataDir, IDEMPOTENCY_HASH_KEY_FILE);
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  return { IDEMPOTENCY_HASH_KEY: `file:${keyFile}` };
}
