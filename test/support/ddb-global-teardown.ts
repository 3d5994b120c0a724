import type { DynamoDbLocal } from '#lib/local/dynamodb-local';

export default async function teardown(): Promise<void> {
  await (globalThis as { __DDB_LOCAL__?: DynamoDbLocal }).__DDB_LOCAL__?.stop();
}
