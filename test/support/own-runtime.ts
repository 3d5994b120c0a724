/**
 * A local runtime of a test file's own (a stage, timers, faults or load that must not meet other
 * files'), started beside its worker's runtime: on the worker's DynamoDB Local with a table of its
 * own (DYNAMODB_ENDPOINT, LOCAL_TABLE_NAME), not on a Java process of its own. Each Java start cost
 * some 4 CPU-seconds of a CI run's two cores, and a worker runs one file at a time, so the two
 * runtimes do not queue behind each other. The table is dropped when the runtime stops.
 * Files about the runtime's own DynamoDB Local (its port, its clean-up) launch theirs directly.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';

type LaunchOptions = NonNullable<Parameters<typeof launchLocalRuntime>[0]>;

export async function launchOwnRuntime(options: LaunchOptions = {}): Promise<LocalRuntimeProcess> {
  const endpoint = process.env.E2E_DYNAMODB_ENDPOINT;
  if (endpoint === undefined) return launchLocalRuntime(options);
  const tableName = `sps-e2e-own-${randomUUID().slice(0, 8)}`;
  const runtime = await launchLocalRuntime({
    ...options,
    env: { ...options.env, DYNAMODB_ENDPOINT: endpoint, LOCAL_TABLE_NAME: tableName },
  });
  return {
    ...runtime,
    async stop(signal) {
      const result = await runtime.stop(signal);
      const client = new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      try {
        await client.send(new DeleteTableCommand({ TableName: tableName }));
      } finally {
        client.destroy();
      }
      return result;
    },
  };
}
