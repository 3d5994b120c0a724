/** Creates the service table in DynamoDB Local from the same definition CDK uses. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tableDef } from '../../contract/table';

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
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
      StreamSpecification: { StreamEnabled: true, StreamViewType: tableDef.stream },
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
