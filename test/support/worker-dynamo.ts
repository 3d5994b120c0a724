/**
 * For an e2e file that runs a runtime of its own (runtime-wide settings: faults, rates, caps): its
 * table in the DynamoDB Local of its worker's shared runtime rather than a Java of its own (about
 * 2.4 CPU-s to start, and a second a minute while it runs). A worker runs one file at a time, so
 * that DynamoDB Local has nothing else to do meanwhile; the table is the file's own, so neither
 * runtime sees the other's data. The variables go into the launched runtime's env (bin/local.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let launched = 0;

export function besideWorkerTable(name: string): { DYNAMODB_ENDPOINT: string; LOCAL_TABLE_NAME: string } {
  const dataDir = process.env.E2E_DATA_DIR;
  if (dataDir === undefined) throw new Error('E2E_DATA_DIR is not set: the e2e global setup did not run');
  const { dynamodbEndpoint } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
    dynamodbEndpoint: string;
  };
  return {
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    LOCAL_TABLE_NAME: `scheduled-payments-local-${name}-${process.pid}-${++launched}`,
  };
}
