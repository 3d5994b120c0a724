/** A fresh table per test file in the integration tier's DynamoDB Local. */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '#lib/local/table';

export interface TestTable {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  drop(): Promise<void>;
}

export async function createTestTable(): Promise<TestTable> {
  if (!process.env.AWS_ENDPOINT_URL_DYNAMODB)
    throw new Error('integration tests need the DynamoDB Local global setup');
  const client = new DynamoDBClient({});
  const tableName = `it-${randomUUID()}`;
  await ensureTable(client, tableName);
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    db,
    tableName,
    async drop() {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
    },
  };
}
