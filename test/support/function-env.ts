/**
 * The functions' environment for the integration tier, set before any test file loads: the
 * functions parse their configuration when lambdas/shared/config.ts loads, and TABLE_NAME is
 * required. Each test file makes its own table; those that use the configured table set
 * TABLE_NAME to it and call reloadConfigForTests(). Each worker talks to its own DynamoDB Local
 * (test/support/ddb-global-setup.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localIdempotencyEnv } from '#lib/local/idempotency-key';

process.env.TABLE_NAME ??= 'integration-table-set-by-each-test-file';
// Idempotency keys are kept by their keyed hash: a key file of this test file's own.
if (process.env.IDEMPOTENCY_HASH_KEY === undefined)
  Object.assign(process.env, localIdempotencyEnv(mkdtempSync(join(tmpdir(), 'integration-keys-'))));
process.env.SERVICE_STAGE ??= 'dev';
const endpoints = (process.env.DDB_LOCAL_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length > 0) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints[(worker - 1) % endpoints.length];
}
