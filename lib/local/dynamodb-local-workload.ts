/**
 * The requests DynamoDB Local answers while its class-data sharing archive is recorded
 * (prepareDynamoDbLocalArchive): the service table's creation, the kinds of reads and writes the
 * service makes, and the stream reader's calls, so that the archive holds the classes a runtime's
 * DynamoDB Local loads at its start and first requests.
 */
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  DescribeTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { ensureTable } from './table';

const TABLE = 'dynamodb-local-archive';

export async function archiveWorkload(endpoint: string): Promise<void> {
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  const db = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  try {
    await ensureTable(db, TABLE);
    const item = (i: number) => ({
      pk: { S: `GROUP#${i % 3}` },
      sk: { S: `PAYMENT#${i}` },
      gsi1pk: { S: 'MERCHANT#m' },
      gsi1sk: { S: `slot#${i}` },
      amount: { N: String(i) },
      status: { S: 'pending' },
    });
    for (let i = 0; i < 20; i++) await db.send(new PutItemCommand({ TableName: TABLE, Item: item(i) }));
    await db.send(new GetItemCommand({ TableName: TABLE, Key: { pk: item(1).pk, sk: item(1).sk } }));
    await db.send(
      new BatchGetItemCommand({
        RequestItems: { [TABLE]: { Keys: [0, 1, 2].map((i) => ({ pk: item(i).pk, sk: item(i).sk })) } },
      }),
    );
    await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': { S: 'GROUP#1' }, ':s': { S: 'PAYMENT#' } },
        Limit: 5,
      }),
    );
    await db.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'MERCHANT#m' } },
      }),
    );
    await db.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: item(2).pk, sk: item(2).sk },
        UpdateExpression: 'SET #s = :s ADD amount :one',
        ConditionExpression: 'attribute_exists(pk) AND #s = :p',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: 'processed' }, ':p': { S: 'pending' }, ':one': { N: '1' } },
        ReturnValues: 'ALL_NEW',
      }),
    );
    await db.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: item(100), ConditionExpression: 'attribute_not_exists(pk)' } },
          { Delete: { TableName: TABLE, Key: { pk: item(3).pk, sk: item(3).sk } } },
        ],
      }),
    );
    await db.send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: 'pending' } },
      }),
    );
    const { Table } = await db.send(new DescribeTableCommand({ TableName: TABLE }));
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: Table!.LatestStreamArn! }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: Table!.LatestStreamArn!,
          ShardId: shard.ShardId!,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      await streams.send(new GetRecordsCommand({ ShardIterator, Limit: 100 }));
    }
  } finally {
    db.destroy();
    streams.destroy();
  }
}
