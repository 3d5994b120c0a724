/**
 * DynamoDB Local's JVM: the test tiers run it on the first tier (jest.config.js sets
 * DYNAMODB_LOCAL_JVM for every tier); `npm start` and the bench, which do not set it, on the JVM's
 * defaults, as a user keeps a table for hours (lib/local/dynamodb-local.ts).
 */
import { dynamoDbLocalJvm } from '#lib/local/dynamodb-local';

const saved = process.env.DYNAMODB_LOCAL_JVM;
afterEach(() => {
  if (saved === undefined) delete process.env.DYNAMODB_LOCAL_JVM;
  else process.env.DYNAMODB_LOCAL_JVM = saved;
});

test('every test tier runs DynamoDB Local on the first tier', () => {
  expect(saved).toBe('first-tier');
  expect(dynamoDbLocalJvm()).toBe('first-tier');
});

test('without the setting (npm start, the bench) it runs on the JVM’s defaults', () => {
  delete process.env.DYNAMODB_LOCAL_JVM;
  expect(dynamoDbLocalJvm()).toBe('default');
  process.env.DYNAMODB_LOCAL_JVM = 'something else';
  expect(dynamoDbLocalJvm()).toBe('default');
});
