/**
 * Environment of the handler tests. Imported first by every handler test file, before any module
 * that reads the environment (the Powertools logger reads it when it is constructed).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localIdempotencyEnv } from '#lib/local/idempotency-key';

process.env.TABLE_NAME = 't';
process.env.SERVICE_STAGE = 'dev';
process.env.AUTHZ_CACHE_SECONDS = '0';
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'test';
process.env.AWS_SECRET_ACCESS_KEY = 'test';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_SERVICE_NAME = 'unit';
// Idempotency keys are kept by their keyed hash: a key file of this test file's own.
Object.assign(process.env, localIdempotencyEnv(mkdtempSync(join(tmpdir(), 'unit-keys-'))));
