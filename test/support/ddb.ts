/**
 * A fresh table per test file in the integration tier's DynamoDB Local, without the stream no test
 * of the tier reads: the tier's DynamoDB Local holds every file's stream records, and each write to
 * a table with a stream cost more the more it held (lib/local/table.ts ensureTable): two thirds of
 * the tier's CPU was DynamoDB Local's.
 */
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
  await ensureTable(client, tableName, { stream: false });
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
