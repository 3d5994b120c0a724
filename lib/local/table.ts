/** Creates the service table in DynamoDB Local from the same definition CDK uses. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tableDef } from '../../contract/table';

/**
 * The table as CDK defines it, with its stream unless `stream` is false: a table nothing reads the
 * stream of (the integration tier's, one a test file) is better without. DynamoDB Local keeps
 * every stream record of the process, even of tables since deleted, and a write to a table with a
 * stream then costs more the more records the process holds: 1.4 ms of its CPU on a fresh one,
 * 12-14 ms once 15,000 records of other tables were written; a table without a stream is not
 * slowed (0.8-1.0 ms).
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  { stream = true }: { stream?: boolean } = {},
): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Map<string, 'S' | 'N'>();
  for (const key of [
    tableDef.partitionKey,
    tableDef.sortKey,
    ...tableDef.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ]) {
    attributes.set(key.name, key.type);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
        AttributeName,
        AttributeType,
      })),
      KeySchema: [
        { AttributeName: tableDef.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: tableDef.sortKey.name, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDef.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: tableDef.stream } } : {}),
    }),
  );
  // Accepted by DynamoDB Local, which does not expire items: nothing may rely on TTL locally.
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDef.timeToLiveAttribute, Enabled: true },
    }),
  );
}
