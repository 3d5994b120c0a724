import type { DynamoDbLocal } from '#lib/local/dynamodb-local';
import { removeRunScratch } from './run-scratch';

export default async function teardown(): Promise<void> {
  const instances = (globalThis as { __DDB_LOCAL__?: DynamoDbLocal[] }).__DDB_LOCAL__ ?? [];
  await Promise.all(instances.map((i) => i.stop()));
  removeRunScratch('integration');
}
