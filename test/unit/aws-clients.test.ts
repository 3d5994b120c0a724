/**
 * The service's AWS SDK clients make no work for a logger they never use: the SDK's logger
 * middleware (which walks each call's input and output against the service's schema, every
 * record of a stream read included) is not on their stacks.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ddb } from '#shared/ddb';
import { awsClient } from '#shared/tracer';

const middlewareOf = (client: { middlewareStack: { identify(): string[] } }): string[] =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]!);

it('a client made as the service makes them has no SDK logger middleware, and keeps the rest', () => {
  const plain = new SQSClient({ region: 'us-east-1' });
  expect(middlewareOf(plain)).toContain('loggerMiddleware');
  const made = awsClient(new SQSClient({ region: 'us-east-1' }));
  expect(middlewareOf(made)).not.toContain('loggerMiddleware');
  expect(middlewareOf(made)).toEqual(middlewareOf(plain).filter((name) => name !== 'loggerMiddleware'));
});

it.each([
  ['the DynamoDB document client', () => ddb()],
  ['a DynamoDB client', () => awsClient(new DynamoDBClient({ region: 'us-east-1' }))],
  ['a stream client', () => awsClient(new DynamoDBStreamsClient({ region: 'us-east-1' }))],
])('%s has no SDK logger middleware', (_name, make) => {
  expect(middlewareOf(make())).not.toContain('loggerMiddleware');
});
