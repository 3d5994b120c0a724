/**
 * Integration tier: an in-memory DynamoDB Local per Jest worker; each test file makes its own
 * table in its worker's. One shared by both workers made each heavy file (thousands of writes)
 * run ten times slower beside another than alone: DynamoDB Local serialises its work on one
 * database, so a file's writes queued behind the other worker's. And one scratch directory for
 * the run, the workers' TMPDIR (test/support/run-scratch.ts).
 */
import type { Config } from '@jest/types';
import {
  localAwsEnv,
  prepareDynamoDbLocalArchive,
  startDynamoDbLocal,
  type DynamoDbLocal,
} from '#lib/local/dynamodb-local';
import { makeRunScratch } from './run-scratch';

export default async function setup(globalConfig: Config.GlobalConfig): Promise<void> {
  const count = Math.max(1, globalConfig.maxWorkers);
  // On a fresh clone, DynamoDB Local's class-data sharing archive is recorded beside these starts,
  // for the later ones (the e2e tier's some 25; lib/local/dynamodb-local-archive.ts).
  const [, ...instances]: [void, ...DynamoDbLocal[]] = await Promise.all([
    prepareDynamoDbLocalArchive(),
    ...Array.from({ length: count }, () => startDynamoDbLocal()),
  ]);
  Object.assign(process.env, localAwsEnv(instances[0]!.endpoint));
  // test/support/function-env.ts points each worker at its own (JEST_WORKER_ID counts from 1).
  process.env.DDB_LOCAL_ENDPOINTS = instances.map((i) => i.endpoint).join(',');
  (globalThis as { __DDB_LOCAL__?: DynamoDbLocal[] }).__DDB_LOCAL__ = instances;
  makeRunScratch('integration');
}
