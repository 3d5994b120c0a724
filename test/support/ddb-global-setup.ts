/** Integration tier: one in-memory DynamoDB Local for the run; each test file makes its own table. */
import { localAwsEnv, startDynamoDbLocal } from '#lib/local/dynamodb-local';

export default async function setup(): Promise<void> {
  const ddb = await startDynamoDbLocal();
  Object.assign(process.env, localAwsEnv(ddb.endpoint));
  (globalThis as { __DDB_LOCAL__?: unknown }).__DDB_LOCAL__ = ddb;
}
